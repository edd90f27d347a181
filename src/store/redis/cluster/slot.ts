/**
 * Redis Cluster key → hash slot: CRC16 (XMODEM: polynomial 0x1021, initial value 0) of the key's bytes modulo
 * 16384, or of its hash tag — the part between the first "{" and the next "}" when that part is not empty. Every
 * roomd key carries a tag (`room:{<roomId>}:…`, `team:{<teamId>}:…`), so one operation's keys share a slot.
 */

export const SLOTS = 16384;

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

/** CRC16/XMODEM of `bytes`. */
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ (TABLE[((crc >> 8) ^ byte) & 0xff] as number);
  return crc;
}

const encoder = new TextEncoder();

/** The part of `key` that decides its slot: the hash tag when there is a non-empty one, else the whole key. */
export function hashTag(key: string): string {
  const open = key.indexOf("{");
  if (open === -1) return key;
  const close = key.indexOf("}", open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/** The cluster slot (0…16383) of a key or sharded channel name, as CLUSTER KEYSLOT answers. */
export function keySlot(key: string): number {
  return crc16(encoder.encode(hashTag(key))) % SLOTS;
}
