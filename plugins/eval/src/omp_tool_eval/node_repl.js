// omp-tool-eval's JavaScript REPL: one node process per session, driven over stdin/stdout
// with JSON lines. In:  {"id", "op": "run", "code"} | {"id", "op": "chdir", "cwd"}.
// Out: {"id", "stream": "stdout"|"stderr", "text"} while a cell prints, then
//      {"id", "done": true, "value"?, "error"?}. Cells share this process's global scope,
//      so what one cell defines the next sees; code with a top-level `await` runs in an
//      async function (its declarations stay local: assign to globalThis to keep them).
"use strict";
const readline = require("node:readline");
const util = require("node:util");
const vm = require("node:vm");
const fs = require("node:fs");

let current = null;
let cellCount = 0;
const send = (message) => fs.writeSync(1, JSON.stringify(message) + "\n");
const emit = (stream) => (chunk, encoding, callback) => {
  const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  send({ id: current, stream, text });
  const done = typeof encoding === "function" ? encoding : callback;
  if (typeof done === "function") done();
  return true;
};
process.stdout.write = emit("stdout");
process.stderr.write = emit("stderr");
globalThis.console = new console.Console({ stdout: process.stdout, stderr: process.stderr });
globalThis.require = require;

function describeError(error, filename) {
  if (!(error instanceof Error)) return "Uncaught " + util.inspect(error);
  const lines = String(error.stack || error).split("\n");
  const user = lines.filter((line) => !/^\s+at /.test(line) || line.includes(filename));
  return user.join("\n");
}

function compile(code, filename) {
  try {
    return new vm.Script(code, { filename });
  } catch (error) {
    if (!(error instanceof SyntaxError) || !/\bawait\b/.test(code)) throw error;
    return new vm.Script(`(async () => {\n${code}\n})()`, { filename, lineOffset: -1 });
  }
}

async function run(message) {
  cellCount += 1;
  const filename = `cell[${cellCount}]`;
  try {
    let value = compile(message.code, filename).runInThisContext();
    if (value instanceof Promise) value = await value;
    const reply = { id: message.id, done: true };
    if (value !== undefined) reply.value = util.inspect(value, { depth: 4, colors: false });
    return reply;
  } catch (error) {
    return { id: message.id, done: true, error: describeError(error, filename) };
  }
}

const queue = [];
let busy = false;
async function drain() {
  if (busy) return;
  busy = true;
  while (queue.length) {
    const message = queue.shift();
    current = message.id;
    if (message.op === "chdir") {
      try {
        process.chdir(message.cwd);
        send({ id: message.id, done: true });
      } catch (error) {
        send({ id: message.id, done: true, error: String(error.message || error) });
      }
    } else {
      send(await run(message));
    }
  }
  busy = false;
}

process.on("uncaughtException", (error) => send({ id: current, stream: "stderr", text: describeError(error, "cell[") + "\n" }));
process.on("unhandledRejection", (error) => send({ id: current, stream: "stderr", text: describeError(error, "cell[") + "\n" }));
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  queue.push(JSON.parse(line));
  drain();
});
process.stdin.on("end", () => process.exit(0));
