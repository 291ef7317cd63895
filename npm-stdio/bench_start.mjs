// Spawn-to-first-answer of built bins: starts `node BIN` RUNS times per bin, writes one request
// on standard input at once, and times the first line on standard output. No network: the first
// request is answered without calling the service. Bins are run in turns (A, B, A, B, ...) so
// that the machine's drift hits them alike. Prints the median and the spread per bin and
// request kind, plus each bundle's size and bare node's start as the floor.
//
//   node bench_start.mjs [RUNS] [BIN ...]      (default: 20 runs of dist/cli.js, after npm run build)
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const runs = Number(process.argv[2] ?? 20);
const bins = process.argv.length > 3 ? process.argv.slice(3) : [join(here, "dist/cli.js")];

const REQUESTS = {
  // A 2025-era client opens with the handshake.
  "initialize 2025-11-25": {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench", version: "0" },
    },
  },
  // A 2026-07-28 client probes with server/discover (a 2025-only server answers an error).
  "server/discover 2026-07-28": {
    jsonrpc: "2.0",
    id: 1,
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  },
};

function once(bin, request) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin], {
      env: {
        ...process.env,
        OPPINTEL_API_KEY: "oi_live_bench",
        OPPINTEL_BASE_URL: "http://127.0.0.1:9",
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const cpu = cpuMs(child.pid);
        child.kill();
        resolve({ ms, cpu, line: out.slice(0, out.indexOf("\n")) });
      }
    });
    child.on("error", reject);
    child.stdin.write(JSON.stringify(request) + "\n");
  });
}

/**
 * CPU time (user + system) the process has used so far, from /proc on Linux (10 ms ticks): far
 * steadier than wall time on a shared, loaded machine. Undefined elsewhere.
 */
function cpuMs(pid) {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return undefined;
  const fields = readFileSync(stat, "utf8").split(") ")[1].split(" ");
  // utime and stime are fields 14 and 15 of stat(5); fields here start at field 3.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function bare() {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    spawn(process.execPath, ["-e", "0"]).on(
      "exit",
      () => resolve(Number(process.hrtime.bigint() - started) / 1e6),
    );
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs) =>
  `median ${median(xs).toFixed(1)} ms, min ${Math.min(...xs).toFixed(1)}, max ${
    Math.max(...xs).toFixed(1)
  }`;

for (const bin of bins) {
  const kib = (n) => (n / 1024).toFixed(0);
  console.log(
    `${bin}: ${kib(statSync(bin).size)} KiB, ${
      kib(gzipSync(readFileSync(bin)).length)
    } KiB gzipped`,
  );
}
const floor = [];
const times = new Map();
const cpus = new Map();
const answers = new Map();
for (const bin of bins) {
  for (const name of Object.keys(REQUESTS)) await once(bin, REQUESTS[name]);
}
for (let i = 0; i < runs; i++) {
  floor.push(await bare());
  for (const [name, request] of Object.entries(REQUESTS)) {
    for (const bin of bins) {
      const key = `${bin} | ${name}`;
      const r = await once(bin, request);
      if (!times.has(key)) times.set(key, []);
      times.get(key).push(r.ms);
      if (r.cpu !== undefined) {
        if (!cpus.has(key)) cpus.set(key, []);
        cpus.get(key).push(r.cpu);
      }
      const answer = JSON.parse(r.line);
      answers.set(key, answer.error ? `error ${answer.error.code}` : "result");
    }
  }
}
console.log(`bare node start and exit: ${fmt(floor)} (${runs} runs)`);
for (const [key, xs] of times) {
  const cpu = cpus.has(key) ? `; CPU median ${median(cpus.get(key)).toFixed(0)} ms` : "";
  console.log(`${key}: ${fmt(xs)}${cpu} (${runs} runs; ${answers.get(key)})`);
}
