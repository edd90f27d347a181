/**
 * Formats of what roomd's authorization server issues (docs/security.md#oauth): authorization codes `roc_<team>_…`,
 * access tokens `rat_<team>_…` and refresh tokens `rrt_<team>_…`, each 32 random bytes after its team, so the store
 * finds the grant in the team's slot with one round trip. Anything not of these shapes is refused without store work.
 */
import { TEAM_ID } from "../protocol/ids.ts";
import { newSecret } from "./digest.ts";
import { shortId } from "./secrets.ts";

export type OAuthSecretKind = "code" | "access" | "refresh";

const PREFIX: Record<OAuthSecretKind, string> = { code: "roc", access: "rat", refresh: "rrt" };
const RANDOM_LEN = 43; // 32 random bytes, base64url

/** `g_<teamId>_<8>`: a grant's id (not secret). */
export const newGrantId = (teamId: string) => `g_${teamId}_${shortId()}`;

/** A new code or token of the team. */
export const newOAuthSecret = (kind: OAuthSecretKind, teamId: string) =>
  newSecret(`${PREFIX[kind]}_${teamId}`);

/** The team a code or token of `kind` names, or null when it is not of that shape. */
export function teamOfOAuth(kind: OAuthSecretKind, secret: string): string | null {
  const prefix = `${PREFIX[kind]}_`;
  if (!secret.startsWith(prefix) || secret.length > 200) return null;
  const rest = secret.slice(prefix.length);
  const team = rest.slice(0, -(RANDOM_LEN + 1));
  const random = rest.slice(-RANDOM_LEN);
  return rest[rest.length - RANDOM_LEN - 1] === "_" && TEAM_ID.test(team) && /^[A-Za-z0-9_-]+$/.test(random)
    ? team
    : null;
}
