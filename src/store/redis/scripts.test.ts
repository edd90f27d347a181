/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "382ee1ecf55028be156183b994f817f510634f67",
  ADD_TASK: "075afa619e7315bbc090a75a6bda0348d9a6c06f",
  DELETE_TASK: "8bd8d50d297e21f37c5ecc42d29e7bd79a4183a4",
  GET_TASK: "a2d0340506c48ba4602ece187bd6e7542c5d5de6",
  READ_PLAN: "cea31682fd87a2eca347a35bb4371b97a7ebdbee",
  SEED_ROOM: "052ef7da98a3052af5c6674ac7ca2d537a42db7c",
  SUMMARY: "c638e0fbcf4d05c42512185f1fcc3d47e2746f4b",
  UPDATE_TASK: "e1ab1f22754a382a38f7d9cd388a48d9a1dbf04c",
  CLAIM_TASK: "61a90839be50b456fa024b90faf0bedea85c747b",
  RENEW_LEASE: "9d2f1e97d90f34b22b4e26d36995bb87ab402958",
  CONTEXT_HISTORY: "39f7a4afe2a149cb0c5cde8a64bf6c171e2259d8",
  CONTEXT_VERSIONS: "07ed8116464c1823d4d5b9abe0b8bc105f7e74f0",
  DELETE_CONTEXT: "baef9f3ec77f110a3a13805764e42ee0833ccd57",
  LIST_CONTEXT: "b445b18c93ac286ec2447aa1866402d12a20a2be",
  READ_CONTEXT: "222c291433036eafe14d243516d06004e5c792c4",
  UPDATE_CONTEXT: "f4783b11b4b0e1aa16d4eff063ce26b800f593d7",
  WRITE_CONTEXT: "0c57fdeca3116678de53693c25959e0e28c31d3c",
  CONSUME_EVENTS: "8275c81f1c55fafc3ccb6158b0ac94fbfadbd4cc",
  DELETE_EVENT: "edcb299a4ded7fe086c4ab57f1018a896b229e80",
  GET_EVENT_READS: "4ad09898775ffeb1498c37e8ea0481896c5aeb4a",
  MARK_EVENT_READ: "251418ba037ae5f428d91c3e793b6aa466bf64ef",
  POST_EVENT: "7f036227a575249f60e903f15228e94b0410325c",
  READ_EVENTS: "a88306342ce6473201017d6db86b8979e48e85da",
  READ_LOG: "bc2815cc5c7a661feadbb2d513d3e8aab94deeaa",
  ACQUIRE_LOCK: "97f9d04ec31d638a50116f9fbcf19948f5b1d302",
  GET_PRESENCE: "7b836ac834aa8e26657593c761c8c3fc556056e7",
  GET_VAR: "23d7003866fd218570b60973dc65a924e0cb02a4",
  HEARTBEAT: "7c495645ff505fbadf8ec61306321c5e4268b4c2",
  LIST_LOCKS: "c453775c3bcb0917f8633abf9a00cab0939d82d8",
  LIST_VARS: "ffb07e42241f41fb9e82b373d370bc8b3fbe924a",
  RELEASE_LOCK: "b76239eeae93ef959fdbed10c1a2580e9ad20bff",
  SET_VAR: "201362882e524efc5f8f40a490a897b7274f11e6",
  CREATE_INVITE: "ce2cba8ef429f9dd2919da00fa50df667c76d4e7",
  CREATE_ROOM: "2f4534c9f713cc1463ead4532a881b3221873bb3",
  DELETE_INVITE: "59494de3c32adc4cceb25e3f75934c63fd56503b",
  DELETE_ROOM: "9e068a4004675ef998e21c748cfcfc6c07c8f5e7",
  LIST_INVITES: "ce02db638eb62077821ad14a0c8bef2a044540fc",
  BROADCAST: "95d28b0528f6b3b317a60e6564ab9734511689bc",
  CLAIM_FILES: "0abc9ac3c2b786d6c5ed9ae82cc575404afe18e2",
  LEAVE_ROOM: "f81fcb4ba2b45d67cf31119796660fafa025a242",
  LIST_CLAIMS: "09c9f3ebe3b1837db664e107b3c59fbac4415e04",
  RELEASE_FILES: "2112be307626e4923ccd2b79c64793a5aef53121",
  ROOM_STATE: "c2108036c1638e7efe64cd8f5468c5c8bb841a24",
  ANALYTICS_LOG: "65742b804ba37a0003c683275d9d609452bc6bc4",
  DECIDE_REVIEW: "c3be38a7070193aebf449a69ed8b88a6784ef842",
  LIST_REVIEWS: "743e376a980a5b467e5b5961588a371604346f21",
  REQUEST_REVIEW: "c94e2937bafce7d6f687607358956d3b4e16173d",
  SEARCH: "0eec9a0c97e0c7502199aa975f3d26b79632e852",
  CREATE_WEBHOOK: "70e5aaedfed39aa93f8825c80e549911c63e4aeb",
  LIST_WEBHOOKS: "55035e8ca4a162dc73719a9eb885bb8469b6e98e",
  DELETE_WEBHOOK: "2413f1ddbe5209356220516b1e6f0cd7a1031271",
  WEBHOOK_DELIVERIES: "d251dab4ccf12da9c74608d948ec4e0bc3a2ec73",
  LOG_TEST_DELIVERY: "81206324f6334c3e9b9a76057eaca9856eba5f0b",
  BRIDGE: "9c5a6a1b82ea016d3fea5ef69251b85ed4187f48",
  DRIVER_ACT: "48275335940c1527297cf5f19131a825bd7e6eb9",
  GET_DRIVER: "b58449a1c1116f5925e7d6e7a4f008a199f3006e",
  RELEASE_DRIVER: "0524b65f87a06a26980ee91e6e0feccdb0f777a5",
  ROOM_DETAILS: "11001932521211880d5ac5a7e2992aeef39c6567",
  TAKE_DRIVER: "05b367a82d3772cc2e533312a1d8700125244ff9",
  DECIDE_APPROVAL: "f6472d4adb50b17ac0a883b598743f385c488d60",
  GET_APPROVAL: "7e15b7c1c18a5da64051dbb34b5397edd2cbd70e",
  LIST_APPROVALS: "53ee60009b838ebe8f4283e8a705c4c3e1a0fafa",
  LIST_VERDICTS: "5a2db74d71518f639be05d61607bbf3b715eaf53",
  RECORD_VERDICT: "edb7c252b7a60be3313b8950a8421cafd4fec5ea",
  REQUEST_APPROVAL: "1a683c5bb7a9730ecab652a856ddfa35012f8505",
  ACCEPT_HANDOFF: "4667b7c211129835d2f0dc1fac88e14d1a3043bb",
  CANCEL_HANDOFF: "39ee29bd7ad40b9cfc767efb11eb9c2074f21abb",
  DECLINE_HANDOFF: "ff9d3b0a34490cfb0aa7a9cf1d0040a83fa16815",
  LIST_HANDOFFS: "d0d56bbb4a3ea33986f5828f97f7b5dece8ef321",
  OFFER_HANDOFF: "e4fb4e49b5f6274353e54d9ecf00529d585800cc",
  FORK_SOURCE: "65ea8f7919b4f88fb97edf93aa2ae83d4b12d401",
  FORK_WRITE: "a7d4ab7bd122f8bb8aecb9cd02e7c6e0ed7237ba",
  EXPORT_LOG: "417e8fc0da6f81ea81081301d55515576dc4b79a",
  EXPORT_ROOM: "5c5554b1f824b0610cea6016441507636f4db301",
  IMPORT_WRITE: "bae48f8e95e23309de37dbfaa7140d8589c67190",
  RESOLVE_INVITE: "3a043c1bf2fa2ae90449a8869f6dcf570aaf9292",
  ROOM_INFO: "e9607f01b29dd6a02df6317db15d3344332bd51c",
  ROOM_STATS: "7ced43bea6e4a408a23b74c38b5dc65ef4844ec5",
  ROOM_SUMMARY: "a438ae17a3d66e96d6815f0f5849062b993baa47",
  CLAIM_DELIVERIES: "ae5d20fc9ade91bd740d4762c54dc7700a574a90",
  RECORD_DELIVERY: "d8dc0f845eee3c9e868efc4749a1e093c600141d",
  CONSUME_RATE: "9608f3b1d6152c8c2c29403265673fffaaac14c9",
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
