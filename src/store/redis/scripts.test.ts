/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_TASK: "6fa41cbae22aebe3980b6ec78e51e39dcbc15c82",
  GET_TASK: "21c771397026f78faba0d3892db24b0e54a7c8ec",
  READ_PLAN: "0e1703f8a50d8ee19de1f993f0d1d765db934ca5",
  SUMMARY: "73f56c0692b55f0c2f81d3c6bf15db22a2c09e31",
  UPDATE_TASK: "ef8f2d4427830de1a62234615f71cbd3aded35b6",
  CONTEXT_HISTORY: "36500416091b0f47d8fc554837d2e1afa54a9d2c",
  LIST_CONTEXT: "fdbf1ec9d1dd8135f188da189cad2611b4514445",
  READ_CONTEXT: "006399c44cdbea3b9a5050d53127ee340cc06e49",
  UPDATE_CONTEXT: "31bca09ac538d488a937decfc1acd486089e0d71",
  WRITE_CONTEXT: "7829f8781ced4dea55fb829fde181f36b7150ff9",
  CONSUME_EVENTS: "3d97c422cda4246869d868bda849c3015aa1ccd6",
  GET_EVENT_READS: "31a74107d198542dae63048f449f7731c140a75b",
  MARK_EVENT_READ: "f9c426e8e7d712218cdf0896cb4948d598cdc4a3",
  POST_EVENT: "140887493d402117fab92303b38bde7423f663fe",
  READ_EVENTS: "1536e1020b1bd50fa9c1aa8c05982e886bfc9438",
  ACQUIRE_LOCK: "5e395b9f9b8e1cb494672804357394d918d53c0a",
  GET_PRESENCE: "c6de77d8226a91b5e921d0217d3f1a3c7a47a101",
  GET_VAR: "b9557b49e511dfda94c667a8fd67a97eb10a78fd",
  HEARTBEAT: "ecea8c156d34768fe0f8358cb2353449573af45b",
  LIST_LOCKS: "1a33b2c4b4a3dd987d578e0593e95e461b30516e",
  LIST_VARS: "d06325eba1183d192157dbccb08a256fd1aef280",
  RELEASE_LOCK: "5dbdb8cb1b2ee5cda8fce7ad40418ae5b04f82e7",
  SET_VAR: "e6c266d4deb1a079ed1e3c1d3b32bab259859b6d",
  CREATE_INVITE: "3c3a2707def6c3a212b4d976733bb24415c6595b",
  CREATE_ROOM: "fa383639cf783cd238b655055454d0c546ae77d1",
  DELETE_INVITE: "fa4cc206634e86e4f8d6c97795d5d17bb7a21fc2",
  DELETE_ROOM: "9458aa9857dba8a1ce3192728277aa543f8be1d6",
  LIST_INVITES: "50c9de5e7fcdcd01128da29cb165b7d7ce4e1a38",
  RESOLVE_INVITE: "04094ca39fed19d3e841938356e3b1ddcf6f1632",
  ROOM_INFO: "d10823f5d88bd7593335fb388d92a5fd82bb221d",
  ROOM_STATS: "1096388997c22e7f714715b0b6d1450ac2dd065d",
  ROOM_SUMMARY: "afc807d454899f9b0f11da21b2565e125e7f942a",
  CONSUME_RATE: "d2d92192fa3f37af4b175a92cdc7e8481f2b3814",
  CREATE_KEY: "50e9783d086f60f4b5078fbcc274b350862d466a",
  DELETE_KEY: "16f739585def5204e43bc040607588e74a8cfee3",
  LIST_KEYS: "4b4d3f11d030715ebf07cc3d002f6f7fce78479a",
  PROVISION_TEAM: "1392d0c5ec6bc3c41cdff2e9f33b6a8e3013ec42",
  RESERVE_ROOM: "a2a41d2d4024b0354fa5896beeb14b47ea79bdd1",
  RESOLVE_KEY: "3d372f375c1aeda37bfa4ec20571ddb0acd672b2",
  ROOM_INDEX: "66dce6c5d00fd05df2096abd5efc6a679cce07c0",
  UNINDEX_ROOMS: "a2f345bd70b31df4882d2f6a61bce938cfc432da",
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
