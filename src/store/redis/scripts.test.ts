/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "e1f3eef64bd7a13034b63e2ccc6cdc1d061e5e0b",
  ADD_TASK: "fd946c84a177aa8664350b3108a0a9a59e1233dc",
  DELETE_TASK: "3683a19523ac99d523da8910c1ff7afa08aa84b5",
  GET_TASK: "b0db5bbd9f070e615abf94fc519bb1443a6708de",
  READ_PLAN: "abe1594fbf21d631f8c80750a5a27b3e9bdef8ee",
  SEED_ROOM: "42da2adee0d9b45123fc311765e4552eefa2d44f",
  SUMMARY: "0503153415bee2f8e294d6a45963b61cb7aecc46",
  UPDATE_TASK: "77ba0ad013920ff28cf6fa7809dd9582918aea7c",
  CLAIM_TASK: "ec79739f9edb0c8512e6374fe6335558085723e7",
  RENEW_LEASE: "38c2ba1b04d9e869a1ec4ee573d21dbaeed7e91f",
  CONTEXT_HISTORY: "07b380d9a0e803f858aefc9ea9a1eb2c3c12adad",
  CONTEXT_VERSIONS: "2c118a6fddb1917ad89c1f6b637c4ba1ac069aa0",
  DELETE_CONTEXT: "b9574f205270378c2718471833600cb482b19092",
  LIST_CONTEXT: "caec3b8d0d8c974eed65c99d8dda9997f018c4ce",
  READ_CONTEXT: "495344570eabcd170882729cb01979626cc77c38",
  UPDATE_CONTEXT: "c432c66853813ccad5b1602604a3f7cf90a347da",
  WRITE_CONTEXT: "42e8969a4f810413f06720cf73476d90a2f28ab7",
  CONSUME_EVENTS: "27f64a5d01793beea65cf78f26bf10667ed6f83b",
  DELETE_EVENT: "e2f1c02814afaab12291af879f3ddbbd9ad38d5c",
  GET_EVENT_READS: "b41a4c06908871d3ecd5753a82dac1b468b9e47c",
  MARK_EVENT_READ: "e5119f6a7df71afd2cbdee07472ff90571e8efed",
  POST_EVENT: "b5ff50b21c88b195ad40868492d23e28bc2ab52d",
  READ_EVENTS: "646ee8203256375f1c28e5ecb625a7b964343a78",
  READ_LOG: "491ca5c13320cbcdccdf36adc1fd66a18a394864",
  ACQUIRE_LOCK: "59beed068fb33b68a9b49283164f71c4c55c3ae0",
  GET_PRESENCE: "e27b6bc3278ae210b81e1f460757e4ba67620c06",
  GET_VAR: "90ffa0d60da8ca3d24cb659c643610b9c817d6a8",
  HEARTBEAT: "bedc919b6583add8e4a37bb7c602cd53fb9965f0",
  LIST_LOCKS: "0ed4cbd5be33e4cfa3dafdb18e535e4f0a2013b6",
  LIST_VARS: "50de760d2a0022d2473d4b0c30babc0c49a9129e",
  RELEASE_LOCK: "09293fa7d0b10a4ae1b18e1bf4ffcf94c803aaaa",
  SET_VAR: "27a454265cfda509d83d9ca6859c0bb64ab1f8c2",
  CREATE_INVITE: "ba0cd0d69ee80b49ecabc5ebdee992ccad97aab8",
  CREATE_ROOM: "10fc6762151f0fba0c1759b5d5971d3c2da856b9",
  DELETE_INVITE: "080e0ce5114ef9ee43a602f9883f14acf217d852",
  DELETE_ROOM: "14e65f246b8944148188687fa6bb030ddbac81b1",
  LIST_INVITES: "4e549e978a73b96c9e08e487d3897160781a8206",
  BROADCAST: "4c5b82f0a0f96365eacbc5eb6a02419cbc7a759d",
  CLAIM_FILES: "e4fe302fb90abb774e0ec7ddee7ea677d10f9292",
  LEAVE_ROOM: "b457ba9673a8f87ecaf9c236d9314916ca6a8611",
  LIST_CLAIMS: "17a4ab18598c44c35d9a17d4abc369e2f455bfcd",
  RELEASE_FILES: "10abd76db7cd7d13349cab91a84165a4ca9c77eb",
  ROOM_STATE: "53ce3c2bb1128a0db48b4451c655b2153d19804e",
  ANALYTICS_LOG: "3faf0b3515ee0512bb04f79a03a4b964e898388e",
  DECIDE_REVIEW: "7efb5b64a17f2cdc04642b9d5c73b0c5746ce0d1",
  LIST_REVIEWS: "e125f4e2df071da371deba3ed8e60f21e26e49b0",
  REQUEST_REVIEW: "24674396c7936f3c8853fcf67ffb03fe0a8dd3a6",
  SEARCH: "476e388784b2ab2c51a81364c5c5b2617673dcf8",
  CREATE_WEBHOOK: "374af13f6ab8fb1a8b2905bfd43fdc042847135a",
  LIST_WEBHOOKS: "9fbd25df50a5bd8ab0d81a9cbdd1e59ef2b816e8",
  DELETE_WEBHOOK: "269d79675757d3d9ff5fcd253245dd50d5fab9cf",
  WEBHOOK_DELIVERIES: "73468c66a9cad6384928ce11e1e114edad1a8b94",
  LOG_TEST_DELIVERY: "0b8866890d2fc93c6be7bd7330512daa9ffdd0fd",
  BRIDGE: "454361519915257b5e27c373f5a44abd7280e7eb",
  DRIVER_ACT: "396235f6a570e5ff49db672a0a51284283a9bb1b",
  GET_DRIVER: "cb6fdf4d218f152e85c8dab6e688c5be2bea4940",
  RELEASE_DRIVER: "a45f2907fbb0208d591ba8a25884925b357abd95",
  ROOM_DETAILS: "7a5cc92a0378847859e14fefe9cd7f9dd27194f4",
  TAKE_DRIVER: "4b54b481cbad0b1c5f5418a27fcb1fa737342f8f",
  DECIDE_APPROVAL: "5247dfa2008c154ef93f082ec3363bd9b7779041",
  GET_APPROVAL: "dbb0d2a9adce015df4437d144dfb2fa89eddf5cc",
  LIST_APPROVALS: "34c70089f43c64d4a87081f577f68f0b36d8239f",
  LIST_VERDICTS: "b4ab84eb0200af0f9ea43c2a4f61f1168fdc458b",
  RECORD_VERDICT: "a3f809937bd9d47ebbdda995a6666aa282b19453",
  REQUEST_APPROVAL: "c6c1cba5388ae1b83adcf51b8be18a5eaa7a4217",
  ACCEPT_HANDOFF: "41b188c6ceb1cc1ec1da2b4bca9b9c1962e380c7",
  CANCEL_HANDOFF: "16f06dd438508e6c1f5acaf44c9b5f611710a53a",
  DECLINE_HANDOFF: "008068a8ea7cf55d40cb13b72c9d6527ee0659ca",
  LIST_HANDOFFS: "d32b766d7ec3dd0ab7bca353fa85e66bda0199fe",
  OFFER_HANDOFF: "e6fc03e81d5c8aa48eafd61dd8a3b895b759673d",
  FORK_SOURCE: "1a8cb251d55309334cfe2588bc1ae27b78e44baf",
  FORK_WRITE: "7d121fbb42f3262cd0f54a90b2bd5c7496b31e00",
  EXPORT_LOG: "f65b06eca2d5a821c299e6efbfc71ab3b92f3885",
  EXPORT_ROOM: "90e9d01b4e0406af525b3309d96bd56ddd811d7a",
  IMPORT_WRITE: "671d3da37e2bf82c529838cc7c19fc6453f0560f",
  RESOLVE_INVITE: "b3f2a0b29746e1fc027651c3dbb77e01854c5c78",
  ROOM_INFO: "c612449762de70642583c26f787b3184f9f056b7",
  ROOM_STATS: "b81f9112020d0339a936087f2d2f2a2ac738c779",
  ROOM_SUMMARY: "94f92ad485dcc3c1b2853a13d95ec3dcbdf888f8",
  CLAIM_DELIVERIES: "8289faaed0bd107db06ac8e4d9cb3948153c7af8",
  RECORD_DELIVERY: "3d747a7d69db7733099195b23f4727dcfd6adabd",
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
  // inviteDigests read through LIST_KEYS and LIST_INVITES).
  expect(Object.keys(SCRIPTS)).toHaveLength(24 + 11 + 9 + 6 + 3 + 8 + 5 + 2 + 3 + 17 + 2 + 3);
});
