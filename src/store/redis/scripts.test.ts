/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "5e81ced7ce764925d0b835f63b3e8cf44e454505",
  ADD_TASK: "5363f7160a524c1b4353ab589e55a66f449d4e32",
  DELETE_TASK: "fc5624071cffb87b5d67dd9bff517a269955fca7",
  GET_TASK: "665665a4e0554bb79971de88954cbfa3342977fe",
  READ_PLAN: "f6b5fd37c97c8e3499b3a57144a3e02247b2a9d5",
  SEED_ROOM: "aaf91f88150a2f60c66da27d0c2fe74f86c5ea0b",
  SUMMARY: "58592a3c20fc92bcd7979509cf78b716f8ab1cf8",
  UPDATE_TASK: "b55378855bde2efb3b1288e146cd494b830f0e4b",
  CLAIM_TASK: "b3ba868738348417ae8a42c0c88e4a79f809baf1",
  RENEW_LEASE: "34b867460f432e8d8820fbd3910aa890b9e430ba",
  CONTEXT_HISTORY: "8e489abef93968cec48d494df3b6c869f642d36e",
  CONTEXT_VERSIONS: "e3c2ff2917663d020fe458d50b66ec191d64aaa6",
  DELETE_CONTEXT: "6d14079344aa33623523f11ae9d35321ec6e6152",
  LIST_CONTEXT: "11ea5e5e832fe860cf110898e82a942ef51af7ad",
  READ_CONTEXT: "d5143293d08784ee084c789903051f2eacf108e5",
  UPDATE_CONTEXT: "38a6d24975bdae668aa03efec4f946680d2c2955",
  WRITE_CONTEXT: "7123d111efb08968336cbe32398d4768352038d1",
  CONSUME_EVENTS: "bb7596a19b65165f933db30db47fe729d2ba3c7d",
  DELETE_EVENT: "ab9af6d2bc0fe91c635e1853eab9e05731da0eea",
  GET_EVENT_READS: "c32e8672e5c976be9c5544e996d995794ced44af",
  MARK_EVENT_READ: "26a6f853f100a242407fc4152f63dbd1a87e20f7",
  POST_EVENT: "1aa5685373f2c9ba183f7a2f6d03428b470d374d",
  READ_EVENTS: "de1098b4d970a82d44c407849f0c391dd261d266",
  READ_LOG: "68cb88699529510f55d4b75f9f83744cb75ae687",
  ACQUIRE_LOCK: "4ed1ad55da7f3958bc30870779bee21b7e5c6719",
  GET_PRESENCE: "07f6bd48f6de017e4bbe9dc49e4a481225353340",
  GET_VAR: "ca572af37f9ac93cf11ff14c8cd74c8553123b42",
  HEARTBEAT: "6652f17400deb1a278128756c194a4185affb295",
  LIST_LOCKS: "32fa633df40f67759653a833eeca93e4f44ec5d4",
  LIST_VARS: "e03594eddd7b1d3b4010716dec2de8e531428b07",
  RELEASE_LOCK: "03053b68fdf6e66146bae8ca4ed02d004276297e",
  SET_VAR: "d07eb54d52c87f0778bf8d02929b77265ca67321",
  CREATE_INVITE: "582ba689c69c949440b49ab2dcdc91440a94824e",
  CREATE_ROOM: "98479f8d71b8b7ca6dda8ddab7f9baf861485406",
  DELETE_INVITE: "fcb4ad22b6b6cca1c5389102cce93ab64a833ac9",
  DELETE_ROOM: "f45122b900164c261c2573e4c78241e6d4ae8197",
  LIST_INVITES: "a6badf6332ac2c8c12d2d2b58073dd3ed20f4e6b",
  BROADCAST: "9bb87c4fc2a3deec386e2beed19260089a368355",
  CLAIM_FILES: "94aad4f8d67d279388727909b1ffed6f4d8d201d",
  LEAVE_ROOM: "b60ab5755d09e305b142069ee8a300f446610108",
  LIST_CLAIMS: "675f811bdc6d2bbeb3738b5a8479889c6e941eff",
  RELEASE_FILES: "2a4da2caa40b5ef60ad0daece3e4df736e04c54d",
  ROOM_STATE: "4c46e1a1b2fdf16f56532413c36fce5070c4f4b1",
  ANALYTICS_LOG: "f7bcefe3db1d39874096bf13898983bc51c92b85",
  DECIDE_REVIEW: "c2c62bf0c22db44b8b0da674ed3160522b485c52",
  LIST_REVIEWS: "8c9da68df202b54703bb2e08e9a71a3a329d135a",
  REQUEST_REVIEW: "ee3ad7da79448fc8c936537dff39c9754d367216",
  SEARCH: "553743cfc05831a91e022ca27b7f2e41e4f73c54",
  CREATE_WEBHOOK: "ff71d143a43c3c8a761eb4384dd8807f9968fa5e",
  LIST_WEBHOOKS: "af46bd82396ecde364790c4db4fbe0722b7e8ce9",
  DELETE_WEBHOOK: "527c1455cdfb837068f697970b984518d740a84c",
  WEBHOOK_DELIVERIES: "ad5ea17439f818ddbaf7251d3d045162b8104062",
  LOG_TEST_DELIVERY: "d5d71fa94cab1095807ea044c30d062088b2c007",
  BRIDGE: "c7ca72065606950ca37fb9dbd6c50e3ffc37158b",
  DRIVER_ACT: "e527a977fc8d4e19cf9a488e5e3e5c42381fa000",
  GET_DRIVER: "ae301bbef915c9f087bb2745e98b40657d727a28",
  RELEASE_DRIVER: "c325ea0e6a82fa4a66ad6a1ed120da964f76e672",
  ROOM_DETAILS: "af9af6317bf09ac9c0ed0bd567e416eff73b550b",
  TAKE_DRIVER: "38e4ff817fbdd2c575a8a0520b3375a9b49ca2a1",
  DECIDE_APPROVAL: "a6083512cbec338b7b17165eb064e3e704a039d4",
  GET_APPROVAL: "c2edcf50b77b2db5622280b7be579429376d54ad",
  LIST_APPROVALS: "4f2f3034e3f086a988f817f46ed4a42d273a2859",
  LIST_VERDICTS: "740f889f8865f807fa4375b3dc1776a31a145b8b",
  RECORD_VERDICT: "4f3fe639897d706ef5ee07815ac0e2836fd237da",
  REQUEST_APPROVAL: "6c5626212b1fb623f9a2795e53073c23c04edba6",
  ACCEPT_HANDOFF: "5288fbd7d7ac256a3d1b380e82f5def8410a0269",
  CANCEL_HANDOFF: "adfa9ed20ecee86ff5a3a7d824ae1954f08b9606",
  DECLINE_HANDOFF: "6c6d74b5945a1fd3ab1c37b31fb5b65168be7b30",
  LIST_HANDOFFS: "cf7b09229a6dfd8dce65dab70aa89770d9daf7a4",
  OFFER_HANDOFF: "dde291dc02dae7973bdb7039e649bc8ea568ac56",
  FORK_SOURCE: "7ef10c68ce7fbcdb991e70d0601ccee8f4cf6560",
  FORK_WRITE: "a937dcd2d8538d5b6b187ed3db30e87760687735",
  EXPORT_LOG: "80d5401b309dd59e076623a14860ef4f6cb44482",
  EXPORT_ROOM: "9e9d8d6eccd62f1c1692f35bba906ad3fa4260b5",
  IMPORT_WRITE: "3bfa4a2c67c84d16a67ce0b5e8dbb12ba14cb0f2",
  RESOLVE_INVITE: "6d518a4ef302f0e8bc3cda977ddaf321caa8b10a",
  ROOM_INFO: "63f16da6d97ff3d0cde7db8fb86e7092de642ae0",
  ROOM_STATS: "6e12dd3939b08ec985505e0caf54366b815f893b",
  ROOM_SUMMARY: "5ca211217c20a47733b19d54655dde37c95c318e",
  CLAIM_DELIVERIES: "25a05100fed69624bb1c487d47404ae30cc33e58",
  RECORD_DELIVERY: "602d5112e82a8437f35636c2db92b3db0db0ee30",
  CONSUME_RATE: "cb5ffea5e71a89d3c8ca54417b82f70098242e96",
  CREATE_KEY: "f19f2c82215b9f6f199f81de787560ff669e474b",
  DELETE_KEY: "8c3006d83f831bafa623ffb60dd6ccc44e852bb8",
  LIST_KEYS: "f52d00014dfff7b5ece3d30cfee8748b85335d89",
  PROVISION_TEAM: "6ca3e1bb891ff8e0243610b664b75c4574212c23",
  RESERVE_ROOM: "14814f9166e49e56c69f08983431a10ecf291a3e",
  RESOLVE_KEY: "f7ca2db8d05a74a8ccd53dbdf09e76c4c614b3a1",
  ROOM_INDEX: "996de300eb0c99a68a37b7db97f0738e042fbe09",
  UNINDEX_ROOMS: "6e3994b475da206bcff153c0dffeed3ce3c07124",
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
