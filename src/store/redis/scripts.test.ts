/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "ae7b78441aef869600106ce09bb46177f5329285",
  ADD_TASK: "cc461f80e926ea68e3ab24a2afb287a00e778540",
  DELETE_TASK: "8d16b211ea75bcce5c45458cab742fa36b0d2a22",
  GET_TASK: "a2d0340506c48ba4602ece187bd6e7542c5d5de6",
  READ_PLAN: "cea31682fd87a2eca347a35bb4371b97a7ebdbee",
  SEED_ROOM: "fb660667e7a3e89dc5e2bfb3cd871f484e9f706b",
  SUMMARY: "4de1b0b308960c405fb356efbc140c6e2831e5c2",
  UPDATE_TASK: "65a8461280e891068c840be15447746b217871cb",
  CLAIM_TASK: "aad9006d925d09450e08a9209b91158db36177f3",
  RENEW_LEASE: "f01baa57ebde1191933088f1ab8e66cc515a11d4",
  CONTEXT_HISTORY: "39f7a4afe2a149cb0c5cde8a64bf6c171e2259d8",
  CONTEXT_VERSIONS: "07ed8116464c1823d4d5b9abe0b8bc105f7e74f0",
  DELETE_CONTEXT: "b08af6d02882a0bcbc087cff1cf7071bffbb648d",
  LIST_CONTEXT: "b445b18c93ac286ec2447aa1866402d12a20a2be",
  READ_CONTEXT: "222c291433036eafe14d243516d06004e5c792c4",
  UPDATE_CONTEXT: "ff9b9696e8111efbdffee6130f89320d6154963b",
  WRITE_CONTEXT: "c5a31048ab265d6e0d87dc761355bb820a98ae12",
  CONSUME_EVENTS: "55c3495e8a11e6cdb57235b916a9ac3413b183ae",
  DELETE_EVENT: "edf21e79fe2ad186f3c4ebe002e66e896af1740b",
  GET_EVENT_READS: "4ad09898775ffeb1498c37e8ea0481896c5aeb4a",
  MARK_EVENT_READ: "251418ba037ae5f428d91c3e793b6aa466bf64ef",
  POST_EVENT: "4f0841e059822332fbbc12b8a7c7729fa22ff41a",
  READ_EVENTS: "6048645f07d997578d58122cc6290fb61f7867cc",
  READ_LOG: "be99867b5e23da79d0ab139855ea1e2146087cdf",
  ACQUIRE_LOCK: "97f9d04ec31d638a50116f9fbcf19948f5b1d302",
  GET_PRESENCE: "7b836ac834aa8e26657593c761c8c3fc556056e7",
  GET_VAR: "23d7003866fd218570b60973dc65a924e0cb02a4",
  HEARTBEAT: "7c495645ff505fbadf8ec61306321c5e4268b4c2",
  LIST_LOCKS: "c453775c3bcb0917f8633abf9a00cab0939d82d8",
  LIST_VARS: "ffb07e42241f41fb9e82b373d370bc8b3fbe924a",
  RELEASE_LOCK: "b76239eeae93ef959fdbed10c1a2580e9ad20bff",
  SET_VAR: "9a74f6fb42cb5733852f1f9d1b2bb2c24a09ba36",
  CREATE_INVITE: "ce2cba8ef429f9dd2919da00fa50df667c76d4e7",
  CREATE_ROOM: "2f4534c9f713cc1463ead4532a881b3221873bb3",
  DELETE_INVITE: "59494de3c32adc4cceb25e3f75934c63fd56503b",
  DELETE_ROOM: "9e068a4004675ef998e21c748cfcfc6c07c8f5e7",
  LIST_INVITES: "ce02db638eb62077821ad14a0c8bef2a044540fc",
  BROADCAST: "b69cafb98be1b668a5a1ff13cf585d01f5daddab",
  CLAIM_FILES: "c4fc565749c5b87e318f13da78e9e905625521ff",
  LEAVE_ROOM: "42aebf0904b9c197c9fbfc3129817aecdb005428",
  LIST_CLAIMS: "09c9f3ebe3b1837db664e107b3c59fbac4415e04",
  RELEASE_FILES: "a5fe372cbf75b1869521959e78fa8aa4d49cd68e",
  ROOM_STATE: "c2108036c1638e7efe64cd8f5468c5c8bb841a24",
  ANALYTICS_LOG: "c4b00ac20a8a04ec30a05320ea27af8d4ab07897",
  DECIDE_REVIEW: "3ac94df18a3171308782c9b6b34ce3fcf936fdda",
  LIST_REVIEWS: "743e376a980a5b467e5b5961588a371604346f21",
  REQUEST_REVIEW: "28c58d515b8c4dc8df35424fd1df30639206ae9f",
  SEARCH: "0eec9a0c97e0c7502199aa975f3d26b79632e852",
  CREATE_WEBHOOK: "70e5aaedfed39aa93f8825c80e549911c63e4aeb",
  LIST_WEBHOOKS: "55035e8ca4a162dc73719a9eb885bb8469b6e98e",
  DELETE_WEBHOOK: "2413f1ddbe5209356220516b1e6f0cd7a1031271",
  WEBHOOK_DELIVERIES: "d251dab4ccf12da9c74608d948ec4e0bc3a2ec73",
  LOG_TEST_DELIVERY: "81206324f6334c3e9b9a76057eaca9856eba5f0b",
  BRIDGE: "70bf0a0e1e2495d2594ea47c6948b7615fb07624",
  DRIVER_ACT: "0083f29604588616e8c153d0695f14323f1d63ac",
  GET_DRIVER: "b58449a1c1116f5925e7d6e7a4f008a199f3006e",
  RELEASE_DRIVER: "62d3504f1a7097e31bc6df099554e78838f57a4a",
  ROOM_DETAILS: "11001932521211880d5ac5a7e2992aeef39c6567",
  TAKE_DRIVER: "8ac82687c889634de75f47e741e1849329d54959",
  DECIDE_APPROVAL: "2a47d704cae5250a2cdab942c3a0cfe07b2887f3",
  GET_APPROVAL: "7e15b7c1c18a5da64051dbb34b5397edd2cbd70e",
  LIST_APPROVALS: "53ee60009b838ebe8f4283e8a705c4c3e1a0fafa",
  LIST_VERDICTS: "5a2db74d71518f639be05d61607bbf3b715eaf53",
  RECORD_VERDICT: "fe141d67b0a8b1ca31e1e72126cc1a564c80c64a",
  REQUEST_APPROVAL: "e93c6f3640f4000c2665e807d221cb0d501cceb3",
  ACCEPT_HANDOFF: "e9d85df5dddc7eddc5e54e697779349536d8fe95",
  CANCEL_HANDOFF: "34eb09b5fd81c05001307a226cc77a719a7e8e22",
  DECLINE_HANDOFF: "9aae675165bbc8c9d5db43447a3f5891f8b2cea1",
  LIST_HANDOFFS: "d0d56bbb4a3ea33986f5828f97f7b5dece8ef321",
  OFFER_HANDOFF: "659e579e490ddc99af68c75ce5b8046eb1115c59",
  FORK_SOURCE: "4d4e6a7296f8b56500dcd877010e8cacd5fb7ffd",
  FORK_WRITE: "93fbf8a634e76bac2b47260ee52be5d19f0bb0e9",
  EXPORT_LOG: "2c3e5c2f6595c6cc505a65c8359b97b924588ba3",
  EXPORT_ROOM: "5c5554b1f824b0610cea6016441507636f4db301",
  IMPORT_WRITE: "bae48f8e95e23309de37dbfaa7140d8589c67190",
  RESOLVE_INVITE: "3a043c1bf2fa2ae90449a8869f6dcf570aaf9292",
  ROOM_INFO: "e9607f01b29dd6a02df6317db15d3344332bd51c",
  ROOM_STATS: "7ced43bea6e4a408a23b74c38b5dc65ef4844ec5",
  ROOM_SUMMARY: "06668464f829b0df317a50d08d04a92354060f85",
  CLAIM_DELIVERIES: "ae5d20fc9ade91bd740d4762c54dc7700a574a90",
  RECORD_DELIVERY: "420e63bd437409d9012126a3099bc58d3d28e7e6",
  CONSUME_RATE: "ce186b46856aedd11ed142edbbc5ad44b0ec61a2",
  CREATE_KEY: "af36722261a3681dab590f38b7c3f337b04adf27",
  DELETE_KEY: "c4a9edcadef7a84eb290b983a5e60c7ad83f19e5",
  LIST_KEYS: "b175819510b117b1225cd4213f2c8760b5047061",
  PROVISION_TEAM: "46fabd85d82329830f4d78a3c6b41e36039dc7e8",
  RESERVE_ROOM: "a4cf4fb1441283d7b65e9f289bf25b7ac19e9ffb",
  RESOLVE_KEY: "8dc4f14b1e59059d7db42b11f27cf81a1582eadb",
  ROOM_INDEX: "f3a593db18623b606fa235234827ea4dbd1ad115",
  UNINDEX_ROOMS: "eb0bfd81d706107f7f1b4bd43e3a7970f6638d4d",
  WEBHOOK_INDEX_ADD: "1ce1096ea742a8401159387e0af6001bfdc87814",
  WEBHOOK_ROOMS: "651ca9ef2c6f94fca72a83cd3fa00ac68d398b11",
  WEBHOOK_INDEX_FORGET: "1e698893d7db2c3f9d14aad9d773df7770803b25",
  SESSION_CREATE: "08dee4c7d96436fb63d2a2cc368f59f8d11c8413",
  SESSION_TOUCH: "dc950534e0fc83d7c1cb1f8475b35e43d0709637",
  SESSION_DELETE: "b4b0582e1cd23b0cadecf86b95ea3b77d16066a3",
  TEAM_INDEX_ADD: "76253e588bfe5a8a71198a71e44ce2da4e39d5d5",
  TEAM_INDEX_LIST: "cf9f9da87e4c7d734a510f84f3f12401da603962",
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
  // 24 room operations (readLog for watchers among them), and 11 of the tools of the earlier server (deletions,
  // history, templates, reviews, search, analytics; usableRooms reads ROOM_INDEX and ROOM_INFO); 8 room-slot
  // access operations and ROOM_INFO (read by listRooms and the handshake); 6 team-slot key and rate operations;
  // RESERVE_ROOM, ROOM_INDEX and UNINDEX_ROOMS of the room index; 8 of leases, file claims, leave_room and the
  // AgentRoom views (listClaims and checkFiles share LIST_CLAIMS); 5 webhook admin operations, the worker's claim
  // and record, and 3 scripts of the rooms-with-webhooks index; 17 people operations and the 2 steps of a fork
  // (FORK_SOURCE, FORK_WRITE); 3 of moving rooms (EXPORT_ROOM, EXPORT_LOG, IMPORT_WRITE; keyDigests and
  // inviteDigests read through LIST_KEYS and LIST_INVITES); 3 of people's web sessions (create, touch, delete) and 2
  // of the teams index.
  expect(Object.keys(SCRIPTS)).toHaveLength(24 + 11 + 9 + 6 + 3 + 8 + 5 + 2 + 3 + 17 + 2 + 3 + 3 + 2);
});
