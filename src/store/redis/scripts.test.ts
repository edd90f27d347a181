/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "7125b5b83c26d9086e132698fc5256f7e527d036",
  ADD_TASK: "8ffeadbfce5f847dde5106045f7c43eea404b2dd",
  DELETE_TASK: "7436eab800f68781c247825f898e1513d8efef1b",
  GET_TASK: "28ecedb95b68a9683ffa794b8b3421267921bb99",
  READ_PLAN: "e4ee5951790ef4a3952f028a17c05a092188ad2c",
  SEED_ROOM: "d2e8970c4bffd37668fc69814dfa3a42335fe16e",
  SUMMARY: "60457eadbf365ced12ffe23b3f32a0829730d4ff",
  UPDATE_TASK: "5d4560fe85bbb0cdec783576d792665c594213ab",
  CLAIM_TASK: "40e1fa4314af45870588f33e0b30614f0c2abbd3",
  RENEW_LEASE: "ac57286500599d089e04d5f299788f3c726cbe55",
  CONTEXT_HISTORY: "cd88cee817a3d8f2634fba29e7cc1e77c4c46483",
  CONTEXT_VERSIONS: "4166c99f56796b64883d8902c48ca73ad3105910",
  DELETE_CONTEXT: "7ce1a2bdeb7ebba6abe9e8aef1027b9a557152f3",
  LIST_CONTEXT: "5de44063c8a93531b534c94d50bcf4bdffed5e4b",
  READ_CONTEXT: "d11f53b641a22b48687c0f416a1fefb946b6d9f3",
  UPDATE_CONTEXT: "56514a22b4f3e471dde8fbe3d849d00604892d9f",
  WRITE_CONTEXT: "8b67a70052fd7d3fd3a5b1fc3a7916f6791813e2",
  CONSUME_EVENTS: "3756ad337d9badbfddcbfae9a830ade29ee76eed",
  DELETE_EVENT: "9b28ee84abc99e2beee3f6ab930ab6cb904c96c5",
  GET_EVENT_READS: "bf77fac833f7b20bf108fd43e61b856257f608c5",
  MARK_EVENT_READ: "ebceee8d4b6b1693e417c5fc3e757d5bf507b094",
  POST_EVENT: "d51214cbbfe2d088a1db7544143a7968d159599a",
  READ_EVENTS: "374f58b4b41720ad3ea42faa011cd6448a859fc9",
  READ_LOG: "028b42950470b4fa244c26550edaa422178fa3f4",
  ACQUIRE_LOCK: "339d5707715a61d5f4efd61afc5001532aa66692",
  GET_PRESENCE: "7199c9b161a21148eb9fab72c62cea337e207fa6",
  GET_VAR: "dad7da62774ab408e320c50f181620877b75d6a7",
  HEARTBEAT: "2b6be9e8c56c1d0b2816cdb815f7dfa6a2926765",
  LIST_LOCKS: "4e3fce7dea833aaeec5f45d86431016b3269a8d6",
  LIST_VARS: "6dd37fbd3460ba52749a31b94666e6282616980f",
  RELEASE_LOCK: "c68f05fa75375add4850fd0ae93fbba71745a7ef",
  SET_VAR: "0a054e75174cc66f48a57b0a2174aa024eea23f0",
  CREATE_INVITE: "1f13448900bf98be7abe2c06adcd4b48423ecb93",
  CREATE_ROOM: "2d6383bb1e1e0683f499f567495900fc294c75e4",
  DELETE_INVITE: "e590a8bf0e72fa004f89b02751d5a40c9130e8f5",
  DELETE_ROOM: "ef718abcd69d893e112ea747d1f94b152aa4141a",
  LIST_INVITES: "12ac275e4c701c434df42d1ecca1a5a6723c097d",
  BROADCAST: "5ad728eafd6956793f4aa9e1301a1e9a654e1f21",
  CLAIM_FILES: "fef3393ec28112f1d96ac91eb23369a40d0bdc1c",
  LEAVE_ROOM: "d5cf0db4573b883f443664787ab34963e4eaa0ac",
  LIST_CLAIMS: "000f6d98408e6702ee2b29d08b025ba93af724ea",
  RELEASE_FILES: "fff908c0d17fbabe6fc2ccf9708f3866bfc59c1f",
  ROOM_STATE: "601c35bd462a726e203489b1dd5e72857a39c6ce",
  ANALYTICS_LOG: "d2896afb80ad4f275f259ad741a258dfc6bdb427",
  DECIDE_REVIEW: "be03153da59db14b32bd58824d598e913da7b73b",
  LIST_REVIEWS: "5781dd45de9ed0f513aad8bb10fc70778fbe3de6",
  REQUEST_REVIEW: "5e4a9dc4851690ab5793b797688085e44fb77444",
  SEARCH: "e7f6dbde6aa3e8eb5fbce9da1dab4852658fff7d",
  CREATE_WEBHOOK: "de5686110a5d908741a6054f46c52e702568f9c2",
  LIST_WEBHOOKS: "aa9e06eeecac20de4d8ca0a270c217d8df532ec0",
  DELETE_WEBHOOK: "8fd97cf94ccfc4225a1fed3ae4fce236097dd88a",
  WEBHOOK_DELIVERIES: "ab20b77ca5e25992e3c41367cfa5b6a141f86c95",
  LOG_TEST_DELIVERY: "a2970a4952295611ba7613911335632cab85ffac",
  BRIDGE: "725060c05cab360e1bf268413d11580715e7e651",
  DRIVER_ACT: "c20bc292369893d4e3d1d501ab345173dcc46f92",
  GET_DRIVER: "57eb8ab7d34d9c9756cecf196efe1eff0ce91273",
  RELEASE_DRIVER: "ccff868b6aa49803f7150fe447fef9326f59207f",
  ROOM_DETAILS: "2c39551044c0ac291df7a23348477bd877af8b68",
  TAKE_DRIVER: "da3f69631e3ef99a7c8ea5a0454b7ac213f15c4e",
  DECIDE_APPROVAL: "55d589a89888afee5b7ce9fab9c95642c486dfe7",
  GET_APPROVAL: "ef69253ef3bbe60c665b004b31960c8e2d1cb704",
  LIST_APPROVALS: "278540f01c6e17d70bf78eebdae3adaf6bdf9fe0",
  LIST_VERDICTS: "04db3e425acfb6532016868f2a4afe08c7000014",
  RECORD_VERDICT: "b69b25093b56b0fc07f90385e11ce7dfff3c65d8",
  REQUEST_APPROVAL: "6ad8e57f74e896eed1547a5e9da81b5ea8139265",
  ACCEPT_HANDOFF: "d4afe359154c9ab5483ed555e73b20a9a9799442",
  CANCEL_HANDOFF: "540edd4008f95eb52ea26b8f7711a4d20a8e8d40",
  DECLINE_HANDOFF: "4af7fc258cb0c1ad7c5a27db2b77c3937e4202fe",
  LIST_HANDOFFS: "3495bd829533de5ba4fbf74a63a0bde95806d322",
  OFFER_HANDOFF: "45faad8b3742ea05887e23848e143e0c284f2327",
  FORK_SOURCE: "2490be7819cf02440e066be2b10bd7fb9bc78f94",
  FORK_WRITE: "942a17bb783843b117d563edded37e6e1495e710",
  RESOLVE_INVITE: "00d4d82e7ba7906efd562dbcc98958a59c418b3c",
  ROOM_INFO: "334253132d67801ae43b08a8f16498f804a728d1",
  ROOM_STATS: "e9c6f3a7cc9fa8770b6ca3025fc41e7e7990a637",
  ROOM_SUMMARY: "c98d9d1b163c40cf94a62fa646cdc9ff43c298fa",
  CLAIM_DELIVERIES: "2ff33e55f3accb588ea78c009ae700e2ed8a6d64",
  RECORD_DELIVERY: "5af00081cf848dd4d2c39d24c58596cdf66dc939",
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
  // (FORK_SOURCE, FORK_WRITE).
  expect(Object.keys(SCRIPTS)).toHaveLength(24 + 11 + 9 + 6 + 3 + 8 + 5 + 2 + 3 + 17 + 2);
});
