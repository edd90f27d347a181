/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_TASK: "940dd5d6bd32c9c26c61e43048460a0dd070044b",
  GET_TASK: "ec1c547ae86a390da360efac6a1c732c0003caae",
  READ_PLAN: "efbc665fbe787b13908a68225af90f967c82ccb2",
  SUMMARY: "1e25220662bdf34a6575ecde4052f1ef5450b413",
  UPDATE_TASK: "41820023ba388e8de230d793b984138b28328d23",
  CONTEXT_HISTORY: "26e6b8b2e4eb344743e6dcc74ae53d70ec7fa30c",
  LIST_CONTEXT: "92223020b4580f6fe78d7266c965d0cbf273098a",
  READ_CONTEXT: "a1828d08391f38ed19edae652d65b7e59584468e",
  UPDATE_CONTEXT: "ddfa37640de98ff94df0988a82255e97f66321ea",
  WRITE_CONTEXT: "77216d54f932df30f1cd4f5858a38b0e515de0f0",
  CONSUME_EVENTS: "14c4ee8baca4684bcab9b055fb59752ef7ca8c19",
  GET_EVENT_READS: "094d27c02e2d646c4f5fa51d5a14904559254298",
  MARK_EVENT_READ: "8e22a27a4de7d75c32a939a68b86342b3457c209",
  POST_EVENT: "b1fe09a246cd6306b86cd0b06530c31f8c634072",
  READ_EVENTS: "4a1aac13bc3496eb94c30537771c34a43ebb9ae5",
  ACQUIRE_LOCK: "faa23c87b5f27a4209cc89f1eecdd743e0c74da7",
  GET_PRESENCE: "9db086bb62a62b7ec7de6778919063912cb6a152",
  GET_VAR: "c928bf723e9755fac83ef2fe1c95ff7270277adf",
  HEARTBEAT: "626ae7789c2aeae844bc653f7ebd2dd47f810ec8",
  LIST_LOCKS: "bcc7e9922ca4b03a1cb52ed578fbad16079b0257",
  LIST_VARS: "d4068eb7d1350ef5f265802df96724a212013af9",
  RELEASE_LOCK: "c968c676c218854f64652f60b3c176a68f2f8ea5",
  SET_VAR: "a2a01970986fdc251bb95b40f029f559cee1dd1e",
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

test("there is one script per RoomStore operation (lifecycle excepted)", () => {
  expect(Object.keys(SCRIPTS)).toHaveLength(23);
});
