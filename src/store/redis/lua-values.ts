/**
 * Lua of a room's small values (protocol/room-values.ts), each prepended with PRELUDE: every kind in the one hash of
 * the part `values`, field "<kind> <key>", value the JSON text as TS checked it (spliced verbatim, never decoded).
 */
import { arg, returns, script } from "./script-decl.ts";

/** readValues: the kind's values by key. Replies {ok: {key: value, …}} ({} on a room the team does not own). */
export const READ_VALUES = script({
  args: {
    piece: arg.text, // the kind
  },
  reply: returns<Record<string, unknown>>(),
  body: `
if not OWNED then return ok("{}") end
local prefix = piece .. " "
local all = redis.call("HGETALL", K_VALUES)
local out = {}
for i = 1, #all, 2 do
  if string.sub(all[i], 1, #prefix) == prefix then
    out[#out + 1] = str(string.sub(all[i], #prefix + 1)) .. ":" .. all[i + 1]
  end
end
return ok("{" .. table.concat(out, ",") .. "}")
`,
});

/**
 * writeValue: sets the value under the key, or removes it (value none). A new key when the room holds `max` of the
 * kind → {err: "valueLimit", piece, max}; removing a value the room does not hold writes (and claims) nothing.
 * Replies {ok: null}.
 */
export const WRITE_VALUE = script({
  args: {
    piece: arg.text, // the kind
    key: arg.text, // "" for a kind of one value
    value: arg.maybeText, // its JSON text; none: remove it
    max: arg.number, // most keys of the kind a room holds (protocol/room-values.ts valueFits)
  },
  reply: returns<null>(),
  body: `
local prefix = piece .. " "
local field = prefix .. key
local here = OWNED and redis.call("HEXISTS", K_VALUES, field) == 1
if value == nil and not here then return ok("null") end
if not OWNED and not CLAIM_OK then return CLAIM end
if value == nil then
  W("HDEL", K_VALUES, field)
else
  if not here then
    local held = 0
    for _, f in ipairs(redis.call("HKEYS", K_VALUES)) do
      if string.sub(f, 1, #prefix) == prefix then held = held + 1 end
    end
    if held >= max then return '{"err":"valueLimit","piece":' .. str(piece) .. ',"max":' .. num(max) .. '}' end
  end
  W("HSET", K_VALUES, field, value)
end
commit()
return ok("null")
`,
});
