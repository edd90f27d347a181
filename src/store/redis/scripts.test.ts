/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_TASK: "0afbe9196aaeb1784a0c12cca01ca4029229bb87",
  GET_TASK: "027be8a6c597aa0198da75a44fffe9ead0f756e7",
  READ_PLAN: "6c3e474989eda700d946d64ce29f091193e8aec2",
  SUMMARY: "2f57eab10ad055ba0bf17041fb02b53654854361",
  UPDATE_TASK: "3214945a15251ccd591e13350b2dd4cbaef75baf",
  CONTEXT_HISTORY: "abc9f36d408d33ce5e02450bf2ab1827f79a85e5",
  LIST_CONTEXT: "b176bd0687139d16365813b44529d49259fc21a1",
  READ_CONTEXT: "8c39da4e86b9db3ee37ce9b50070cf4a1653026b",
  UPDATE_CONTEXT: "445f311c1a70ef71126991e100610b5be7d058f7",
  WRITE_CONTEXT: "8cf1935894bab1d98ae067184f0afd3f770832a8",
  CONSUME_EVENTS: "1113fa1f5966994db8d7ac72599bad3395a58276",
  GET_EVENT_READS: "a2a49d74c50f747a0aa412340b1bea8af5fb2f79",
  MARK_EVENT_READ: "7b362bd02bdb34129897f4c1b544562b2a0bb977",
  POST_EVENT: "606988364f4b1189d6f128fadacf45a905cf83ed",
  READ_EVENTS: "9eaf6fc1d38232b6aa8f57cbe14c3b4ef6d41afc",
  ACQUIRE_LOCK: "5f31b346b861d77f307894afc75edb480596727b",
  GET_PRESENCE: "bcfd06e077d73bf7e02a25f421fe4c697f1d9328",
  GET_VAR: "ce15c68ebf48adffc6110ae288d3262de201cbef",
  HEARTBEAT: "b1235887a86a707507f3f65d60bd1caa595e3ee0",
  LIST_LOCKS: "5aae0d08ddba8b1e8f4ca01a95cac5e3ec7c7741",
  LIST_VARS: "429cfae6a49937306930244e6b9b137ff94b9fe2",
  RELEASE_LOCK: "00f9fd04b2df0436e270c4cbc5436a0a12ef13a1",
  SET_VAR: "cb9d33a0847a517e9e73c4d160abc4e661fc9566",
  CREATE_INVITE: "5bbd308317ea25fb36b66ebe0bddf423b37d9de1",
  CREATE_ROOM: "40844fc521bcd87b749adbfc11a5b3b4113ffe7a",
  DELETE_INVITE: "d68fcb68e27fe3d36fd21b53618bc95fb1681b6a",
  DELETE_ROOM: "713d8c7471c8dc978452f6a37cf61b21aa351aac",
  LIST_INVITES: "11ddf39f0869359a239a8dcf4e35e0f80d978f37",
  ACCEPT_HANDOFF: "5673c82067e1bc0aeb7eb1175ef248d95f0a97c9",
  BRIDGE: "04d31679db052917973323fc33bd88c2c5733c35",
  CANCEL_HANDOFF: "89877f8c56ab4e06d8dcf58fcef520cb14859b0b",
  DECIDE_APPROVAL: "325b6b70f51126bfd18ffe0ef1304d530d1823eb",
  DECLINE_HANDOFF: "cd965a907c45e34c75c708ea3bcb7fc04d9bf8d6",
  DRIVER_ACT: "63168eb0e8b54e2a8a2e678e0f283ca2b53a7c1c",
  GET_APPROVAL: "b832863e3086e8d20542ce0b59c360f004d71279",
  GET_DRIVER: "448fa584641f3ac31764ab6e8fbcce5ac1c648ef",
  LIST_APPROVALS: "ae4291b4f2a7c8ae2d2cef26e0616bf00dd4834a",
  LIST_HANDOFFS: "9b202162d550c6424a49bdb8cd68f415b9cb184d",
  LIST_VERDICTS: "f3e0d0232824ccaa03d57371a82c2c61ba08994b",
  OFFER_HANDOFF: "f51e9dd3cb84f703918fc853addc3514d6e695d8",
  RECORD_VERDICT: "6c0f4311465e96bb43c13716930ebf4dfb817578",
  RELEASE_DRIVER: "30acc510ab1ab2f3038f990eb15b7e56cdfa9d1a",
  REQUEST_APPROVAL: "210931714305c146c62645d43edbc9023a6a3911",
  ROOM_DETAILS: "3c42e28d886958216c461e89042cac00bbaad543",
  TAKE_DRIVER: "4f285c4fa6dc03dfeed8ad27a0fb891b0c27a47f",
  FORK_SOURCE: "e1196dd2a18ca270d9beaa9a82b45da9fa036466",
  FORK_WRITE: "71a3f10e760aa5c61bbf34f2338425820c5f323f",
  RESOLVE_INVITE: "0d83b75b56a16aa6e07553eb02eaf78a1a3dd662",
  ROOM_INFO: "3399c4d2c85cd8c03e651d9c70b3ed9da2f33eca",
  ROOM_STATS: "490e1c1f280a3414616284898757df619a1f42fe",
  ROOM_SUMMARY: "8101040c8cdefbb4f5ecc39b4bc5a91529e11d9c",
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
  // 23 room operations; 8 room-slot access operations and ROOM_INFO (read by listRooms and the handshake);
  // 6 team-slot key and rate operations; RESERVE_ROOM, ROOM_INDEX and UNINDEX_ROOMS of the room index;
  // 17 people operations and the 2 steps of a fork (FORK_SOURCE, FORK_WRITE).
  expect(Object.keys(SCRIPTS)).toHaveLength(23 + 9 + 6 + 3 + 17 + 2);
});
