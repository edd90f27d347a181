/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_TASK: "df872c342c2e0a8c3ac358edec691d815c3634cf",
  GET_TASK: "a2e0d6d81a4b5c33fcb377ee185f2e45236ed95e",
  READ_PLAN: "1c29dcadc1521727cef66e0b7000542c9ba1574a",
  SUMMARY: "f30012ca21a9369864f518590b1e62427a740b1d",
  UPDATE_TASK: "93fd6bad7f8de3d37f5c06e5298d5d710f3b9777",
  CONTEXT_HISTORY: "ea8701c4a5862c80161a3f40a11876f4bc54fd86",
  LIST_CONTEXT: "e1c65244d4740527e93e1d1d047d2a5da91a4e3e",
  READ_CONTEXT: "03ecd7e2934074a003a5fcef08476c1cac69b7f0",
  UPDATE_CONTEXT: "e06fd859485aa462d57fd7af22cd51f7409ce521",
  WRITE_CONTEXT: "83452f04f98cb5860b3e8eecd59b923bc140d9c6",
  CONSUME_EVENTS: "3db46c7f30971a4a4ab57b03c11c943cd10e27db",
  GET_EVENT_READS: "c2f352045da8cc9aa6386cb7b8f6a8177efe0560",
  MARK_EVENT_READ: "f54b3752b062cbd9abe088353e373e53e4458a9e",
  POST_EVENT: "9d13135b9eae9ff06f6465696650788ad781a792",
  READ_EVENTS: "cc61691cba9f166decffc972b0f2d1a27f28156d",
  READ_LOG: "9bbe7f128a47f523ccf5449cf8ec0486aad82cd7",
  ACQUIRE_LOCK: "3faa1b82560da1455d7d1ed1c4c454e6f9934cab",
  GET_PRESENCE: "5098528c595858621e57397e40aec0c9e7e35dac",
  GET_VAR: "c93b8cd8959eee150bb4d16cc85ca49e48d56d59",
  HEARTBEAT: "bfbd48c707ea46f6f9d03b88b3c995760ba11610",
  LIST_LOCKS: "fa8f65e77b1933454a7ef81bc00af0852410901b",
  LIST_VARS: "ef387c7dd61db8f9a3e6046c128ee9abbecec071",
  RELEASE_LOCK: "e07fbbee184b36d54a717ef57c3fa9ebb7831b3d",
  SET_VAR: "894f1323fa513d18926067fb11059e6a55bde8f4",
  CREATE_INVITE: "8accb2cd28e99e1f2ffdb754c10a152ba370fd9f",
  CREATE_ROOM: "2fa5973cf7288ed37ed820602cf904554d5e1ffe",
  DELETE_INVITE: "ee122a818cc6be0172ef2bf19d01d16b8a0a6ad7",
  DELETE_ROOM: "fde4d1aab4c1e25e8b1d3139a1db9486631b803f",
  LIST_INVITES: "588124e2dfadab727ba884c6c0bd7da1ef381a36",
  RESOLVE_INVITE: "107e79d55307843252ea230c56ebeac68fff6ed4",
  ROOM_INFO: "06c5a5ebcfb3781129b94f1f6030c18d307439eb",
  ROOM_STATS: "51718b1d9cd993a6e59723340f7006b2b16d507e",
  ROOM_SUMMARY: "ccb14c74dbc7a24a7570a4e8b32c00ad2786e14d",
  CONSUME_RATE: "cb5ffea5e71a89d3c8ca54417b82f70098242e96",
  CREATE_KEY: "f19f2c82215b9f6f199f81de787560ff669e474b",
  DELETE_KEY: "8c3006d83f831bafa623ffb60dd6ccc44e852bb8",
  LIST_KEYS: "f52d00014dfff7b5ece3d30cfee8748b85335d89",
  PROVISION_TEAM: "6ca3e1bb891ff8e0243610b664b75c4574212c23",
  RESERVE_ROOM: "14814f9166e49e56c69f08983431a10ecf291a3e",
  RESOLVE_KEY: "f7ca2db8d05a74a8ccd53dbdf09e76c4c614b3a1",
  ROOM_INDEX: "996de300eb0c99a68a37b7db97f0738e042fbe09",
  UNINDEX_ROOMS: "6e3994b475da206bcff153c0dffeed3ce3c07124",
  FEED_HEADS: "afac280fe3a5d3378a8739d17353bcac8bfed2e7",
};

test("every script's SHA1 is computed from its text and pinned", () => {
  const actual = Object.fromEntries(
    Object.entries({ ...SCRIPTS, ...FEED_SCRIPTS }).map(([name, script]) => {
      expect(script.sha).toBe(new Bun.CryptoHasher("sha1").update(script.text).digest("hex"));
      return [name, script.sha];
    }),
  );
  expect(actual).toEqual(PINNED);
});

test("there is one script per store operation (lifecycle excepted) plus the room-index steps", () => {
  // 24 room operations; 8 room-slot access operations and ROOM_INFO (read by listRooms and the handshake);
  // 6 team-slot key and rate operations; RESERVE_ROOM, ROOM_INDEX and UNINDEX_ROOMS of the room index.
  expect(Object.keys(SCRIPTS)).toHaveLength(24 + 9 + 6 + 3);
});
