/** Who answers: roomd's name and version, in every era's server identity. */
import pkg from "../../package.json" with { type: "json" };

export const SERVER_INFO = { name: "roomd", version: pkg.version } as const;
