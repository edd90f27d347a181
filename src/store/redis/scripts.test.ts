/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "59167ec9335af4eb0bafbe29b8eb64327043c43a",
  ADD_TASK: "75f232ea55513ce44add2500d5d26cafab01e57d",
  DELETE_TASK: "83ededf2f4c8d093b7b08d7b6866df4593c48134",
  GET_TASK: "c12637728dac920c08fcadf2236b26718d78cbbf",
  READ_PLAN: "ce7f6af5ebdd79a1b30c9860c2adb34382524728",
  SEED_ROOM: "6621cefe9a21c20898c1beadbc5229ebafa25f3a",
  SUMMARY: "39febbd8dd637830696195c27a1fde409fa0f2b7",
  UPDATE_TASK: "3bf186512896bb381bfd9439ea1290723fb6fc32",
  CONTEXT_HISTORY: "aad4f986b3f64819035146cc7e5254bc985aa3f1",
  CONTEXT_VERSIONS: "1745265e4e5281588f623823fac0e96f1fe0710c",
  DELETE_CONTEXT: "9699e8b76e7dc17b818512bf2936223b90efef33",
  LIST_CONTEXT: "13fe2be0701d6cfb5d4cf769fdcd7e41088d6825",
  READ_CONTEXT: "bb673226f87911d0f3dab66c079ccc1e3caa2618",
  UPDATE_CONTEXT: "37ecfe724e8587a627722fa9753b65ebd7328de1",
  WRITE_CONTEXT: "ce9f7e5b802fc6456aa3bc8dee7c7ab93a35cf19",
  CONSUME_EVENTS: "f5215069d72013f9763b12ca0795d544d8ed1392",
  DELETE_EVENT: "0e85b706516714abfec25292788528f9936b1ce5",
  GET_EVENT_READS: "ecd239e718317adae398f8a89ecfc11bdcbf7831",
  MARK_EVENT_READ: "5b6e172a2c22523705d93130b33868a1cc2fa107",
  POST_EVENT: "94c4d85b14843b406a55c8981983b04465fdc62f",
  READ_EVENTS: "81388d2584c9e3145a674581de7cd9bcddcab5eb",
  READ_LOG: "9a9c78b36ce18bb434d355034be0f41a105d8080",
  ACQUIRE_LOCK: "a12a45e2237e96747ae213b9ab656d258faaa9f9",
  GET_PRESENCE: "3505b8047824e0a0f5c45bc3f78b3f2ec36e13b5",
  GET_VAR: "41fea42e1884b96c7eab4f032ff2284060e32d2d",
  HEARTBEAT: "1edb524924c2cdbe2684d335cfa7a57af38bd47d",
  LIST_LOCKS: "6f0bc02a3c6ef953743151e7e4c161f8da18a4e7",
  LIST_VARS: "da8294db6783375e689304bf0c25dcb9624e5b43",
  RELEASE_LOCK: "3b35e92e4115e242acd90b8bdaf2ec8fb359cf05",
  SET_VAR: "16c7fa06d614bcaa09ae96c9b30da8506b3089f5",
  CREATE_INVITE: "43c7243c6e06d70661d598264a81f4e61a3ebdb7",
  CREATE_ROOM: "606d75ab2b04dc6e1853956102cbcaf4232dc1d6",
  DELETE_INVITE: "e479b14561ca7b406894305e28f0a0199c8f3579",
  DELETE_ROOM: "c90c769b2e7e26088c5a1a453b0e035bf9910ace",
  LIST_INVITES: "0303e85c3f7845aa36a9d38862bccb50d7f750e5",
  ANALYTICS_LOG: "12c1ba1c44888c90da257242499fbbd65e3db3f5",
  DECIDE_REVIEW: "ce279623791b597b470c44dc392b9c017d7b271b",
  LIST_REVIEWS: "6c78c54de3c4647dfc3f148231d087ff5e2ce717",
  REQUEST_REVIEW: "b30c77b6fad90a08f4ad8db7308322c2a7c817d7",
  SEARCH: "bfc32bd1d9de342b91fa53468446e3618fec0cd6",
  RESOLVE_INVITE: "33e9cc14a74eb3a782742b375314e0499cc2ed16",
  ROOM_INFO: "4431e3ce3a9f59abafb7784a6904070b3fbd45ed",
  ROOM_STATS: "7e5bdc38d7fd591a69adfb20c819e696b57fae63",
  ROOM_SUMMARY: "195463d33fd3abf3e50418eb628a0f8462498e4f",
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
  // 24 room operations (readLog for watchers among them), and 11 of the tools of the earlier server (deletions,
  // history, templates, reviews, search, analytics; usableRooms reads ROOM_INDEX and ROOM_INFO); 8 room-slot
  // access operations and ROOM_INFO (read by listRooms and the handshake); 6 team-slot key and rate operations;
  // RESERVE_ROOM, ROOM_INDEX and UNINDEX_ROOMS of the room index.
  expect(Object.keys(SCRIPTS)).toHaveLength(24 + 11 + 9 + 6 + 3);
});
