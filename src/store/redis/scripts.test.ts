/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_TASK: "df592b1b43b2094944311470acc26509c02218fc",
  GET_TASK: "6f83fa2ffdfd265692728071ddeba6fe3d700890",
  READ_PLAN: "66b4679025228c26dc0575c8a676bb364956eaab",
  SUMMARY: "081d9787da562e23c9f4520a76f593fc409b23c7",
  UPDATE_TASK: "cf2692b124018481ce0e81aef57a87bb909579ed",
  CONTEXT_HISTORY: "293a01d2257001104da47bb54309b83ce58641ed",
  LIST_CONTEXT: "22bf2c59eb30e66d9ba2783ecb6e42227e8bff5e",
  READ_CONTEXT: "4451be97d7b2f51f6ba653c6e4963dfaba0b6692",
  UPDATE_CONTEXT: "1bba7db082a016e11e0b70237d4ffbd4177eb556",
  WRITE_CONTEXT: "d656974e038577b53afc0e2b11b3096995fafa1e",
  CONSUME_EVENTS: "b9eee80cbe67acedec3e2b039e23a53bd4f84f25",
  GET_EVENT_READS: "7bffa54d9f2490642077920561271e3b1bb07849",
  MARK_EVENT_READ: "6c57d1dab30d734e88b2ac94c70cb26b6641bdbb",
  POST_EVENT: "4b2a170dac5d0b39a56eefcbb007a60facfcc8bb",
  READ_EVENTS: "afd7808fd71f5200ec6d57f51cb199cd7cb0f284",
  ACQUIRE_LOCK: "38908c666bb965e095a4c2691a28e419020adc43",
  GET_PRESENCE: "54b14a9e6aeb85b5fa494b2acc27e9a300fed35b",
  GET_VAR: "e22d572f58a1f82da5f729ce09bf17a05cf9e012",
  HEARTBEAT: "592e43f56ccc8be689a76203fb179a49aea75a88",
  LIST_LOCKS: "34600579228193c38637c6c1e406ad3f3f890604",
  LIST_VARS: "354f695383cbf45bd401473f166919bb3e490006",
  RELEASE_LOCK: "b2881d81319dc7f304fbba9c64f9c14bbde233f2",
  SET_VAR: "6ac7777c76a5677ee785ac5141b3821240921305",
  CREATE_INVITE: "ee0663506f7f7d83ced5f0753c126767ea22500f",
  CREATE_ROOM: "8aab19f53d3f64e524fecdcb80ac6311877de790",
  DELETE_INVITE: "2a2785bdab2a1c91c764549298f0b25f1d552e7b",
  DELETE_ROOM: "cce59f6e6791b6bb7c6b9a1ab87665be7bf8d0f4",
  LIST_INVITES: "27ad6d0322ef52c8baa400d29fd577597f2c9109",
  RESOLVE_INVITE: "59facbda82605ea2c912b12c9529413f12e9f6d3",
  ROOM_INFO: "14014c4db0b52b769c49837f374f7dc9550216dd",
  ROOM_STATS: "3a50cfa121e8d3e19414c1aa36509ac57fc17338",
  ROOM_SUMMARY: "a27090f2b19a14cb66158e0f8b44574a154f2b6e",
  CONSUME_RATE: "cb5ffea5e71a89d3c8ca54417b82f70098242e96",
  CREATE_KEY: "f19f2c82215b9f6f199f81de787560ff669e474b",
  DELETE_KEY: "8c3006d83f831bafa623ffb60dd6ccc44e852bb8",
  LIST_KEYS: "f52d00014dfff7b5ece3d30cfee8748b85335d89",
  PROVISION_TEAM: "6ca3e1bb891ff8e0243610b664b75c4574212c23",
  RESERVE_ROOM: "14814f9166e49e56c69f08983431a10ecf291a3e",
  RESOLVE_KEY: "f7ca2db8d05a74a8ccd53dbdf09e76c4c614b3a1",
  ROOM_INDEX: "996de300eb0c99a68a37b7db97f0738e042fbe09",
  UNINDEX_ROOMS: "6e3994b475da206bcff153c0dffeed3ce3c07124",
};

test("every script's SHA1 is computed from its text and pinned", () => {
  const actual = Object.fromEntries(
    Object.entries(SCRIPTS).map(([name, script]) => {
      expect(script.sha).toBe(new Bun.CryptoHasher("sha1").update(script.text).digest("hex"));
      return [name, script.sha];
    }),
  );
  expect(actual).toEqual(PINNED);
});

test("there is one script per store operation (lifecycle excepted) plus the room-index steps", () => {
  // 23 room operations; 8 room-slot access operations and ROOM_INFO (read by listRooms and the handshake);
  // 6 team-slot key and rate operations; RESERVE_ROOM, ROOM_INDEX and UNINDEX_ROOMS of the room index.
  expect(Object.keys(SCRIPTS)).toHaveLength(23 + 9 + 6 + 3);
});
