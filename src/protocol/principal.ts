/** Identity of a request (spec access.md §1). */

/** Who is calling: resolved by the HTTP layer before any tool or route runs. */
export interface Principal {
  teamId: string;
  kind: "operator" | "static" | "dynamic" | "invite";
  keyId?: string;
  /** Set for keys bound to one agent: the tool layer forces this identity. */
  boundAgentId?: string;
  /** Set for invites: the one room this principal may touch. */
  allowedRoomId?: string;
}
