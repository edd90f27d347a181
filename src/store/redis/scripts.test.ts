/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_TASK: "3488ca70f6f43ae0eac7b2f2828fcaa75d838955",
  GET_TASK: "c172145e892e911df1d1abc523049fba14b025f1",
  READ_PLAN: "9ce40f82a54fa2a3b09c3ca2b85c41ddfb5b401d",
  SUMMARY: "8b3bc402fc4160206f3fc52eeb3c7e6ecca6dc8f",
  UPDATE_TASK: "d2fbd1e8a9397fdebd04d6652ae35c3a03308600",
  CONTEXT_HISTORY: "42464461b47e61aaaf9617372bad275ca5229cc2",
  LIST_CONTEXT: "fd759136b152f7928742230490a2ea9169fbb448",
  READ_CONTEXT: "548606555d5cbdabcf1c5c78975e8d28c207aff7",
  UPDATE_CONTEXT: "e2ea9236108ad83b9ed7272fffd4f41fe754cf40",
  WRITE_CONTEXT: "5c342368dd948b0d4d3f887f8a6c4d7a24f50826",
  CONSUME_EVENTS: "b7bea37f97b3a68313b09b4caa5df4b5c48fa839",
  GET_EVENT_READS: "be173e3d5b329af24e0956c2ab540cfda7dce9d7",
  MARK_EVENT_READ: "6900451721d09b4df344d2531ad14c8d2f46532b",
  POST_EVENT: "1ef54c4a37430b465fa025ec2f4344b5e8b5e66f",
  READ_EVENTS: "33fac3f890ed8d1fe43c9635d0948e38447a3f75",
  ACQUIRE_LOCK: "4e7351ad9573d549fc74bbfc13b41486a71b1ccd",
  GET_PRESENCE: "5b025c3e1a6a18b614bd11cd3c4759ddab43c85b",
  GET_VAR: "4049ea955b84de5fbc9f8d40a5b3b0e5d83cf853",
  HEARTBEAT: "d51e7acc7f768b8ece7ce951308af183fb7fa3d0",
  LIST_LOCKS: "b464797bd0d4d8de29e59ec1f531164683412f21",
  LIST_VARS: "b84edf0695d9c4288c3e1fca27a61944d2a29f11",
  RELEASE_LOCK: "2e8d5eeafa6a1a9b71ac2c704052b306fcb5b130",
  SET_VAR: "37cb53976f6f7889211a5702677291dbbaca0873",
  CREATE_INVITE: "54b844226b380bfa4fc6973ea44ef9e54f305b24",
  CREATE_ROOM: "32fd5ba6e31abc562a705d1508182718513b21f3",
  DELETE_INVITE: "d3232722e559325b58ca902532aabd1e0f04550a",
  DELETE_ROOM: "727698081220a4189ada0a99a7425d57a84a259e",
  LIST_INVITES: "b7148b15e99bc7b51f53c5e289f10975866bd62c",
  CREATE_WEBHOOK: "a745ef0d4c066e5390a50593b9f96a0d9d7730ee",
  LIST_WEBHOOKS: "3e7f61ec283a9bf953deae75bb5fb7201f7ecc0a",
  DELETE_WEBHOOK: "04abe35d3936557285672ae1a71c1fc6312cf5b9",
  WEBHOOK_DELIVERIES: "c18879129a0aa52a2294b78473b6fe207d961b25",
  LOG_TEST_DELIVERY: "03a02a202abf91310e77b315bb96ea54c9eff368",
  RESOLVE_INVITE: "14049296cb89934feb5a0354fefd2e887aacf649",
  ROOM_INFO: "8837765451c9956f20150f25e75d3a53e87395cf",
  ROOM_STATS: "d8bd56c75e1915fd7c646606e325a96cc1c022a4",
  ROOM_SUMMARY: "bf8bfe9420e4fc72b2149d7b076872dce666be42",
  CLAIM_DELIVERIES: "b315887d55e84926bc65f40420cd112fb5aa358e",
  RECORD_DELIVERY: "8c1aa9812aaff36d737b398e3dd7c9f3aa6921e2",
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
  // 23 room operations; 8 room-slot access operations and ROOM_INFO (read by listRooms and the handshake);
  // 6 team-slot key and rate operations; RESERVE_ROOM, ROOM_INDEX and UNINDEX_ROOMS of the room index;
  // 5 webhook admin operations, the worker's claim and record, and 3 scripts of the rooms-with-webhooks index.
  expect(Object.keys(SCRIPTS)).toHaveLength(23 + 9 + 6 + 3 + 5 + 2 + 3);
});
