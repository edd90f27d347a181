/** Another process holding a SQLite file's write lock, as a long transaction of another roomd would. */

/** Starts a process that takes the write lock of `path` (BEGIN IMMEDIATE), holds it `holdMs`, then commits. */
export async function holdWriteLock(path: string, holdMs: number) {
  const code = `
    const { Database } = require("bun:sqlite");
    const db = new Database(${JSON.stringify(path)});
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("BEGIN IMMEDIATE");
    console.log("locked");
    Bun.sleepSync(${holdMs});
    db.exec("COMMIT");
  `;
  const proc = Bun.spawn([process.execPath, "-e", code], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let seen = "";
  while (!seen.includes("locked")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("lock holder exited early");
    seen += new TextDecoder().decode(value);
  }
  return proc;
}
