// A paced (open-loop) load: `rate` requests a second, spread evenly over each millisecond, on
// keep-alive connections; prints the latency percentiles as JSON. Used by npm run bench for the
// p99 at a fixed rate, where a closed-loop generator would measure its own queueing instead.
// usage: tsx scripts/paced-load.ts <url> <rate> <seconds> [keysFile] [connections]
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const [url, rateArg, secondsArg, keysFile, connectionsArg] = process.argv.slice(2);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const keys = keysFile ? readFileSync(keysFile, 'utf8').trim().split('\n') : [];
const agent = new Agent({ keepAlive: true, maxSockets: Number(connectionsArg ?? 64) });
const target = new URL(url!);
const latencies: number[] = [];
let sent = 0;
let errors = 0;
let inFlight = 0;

function one() {
  const t0 = performance.now();
  inFlight++;
  const key = keys.length ? keys[sent % keys.length]! : undefined;
  const req = request({ host: target.hostname, port: target.port, path: target.pathname + target.search, agent, headers: key ? { 'x-api-key': key } : {} }, (res) => {
    res.resume();
    res.on('end', () => {
      latencies.push(performance.now() - t0);
      inFlight--;
    });
  });
  req.on('error', () => {
    errors++;
    inFlight--;
  });
  req.end();
  sent++;
}

const start = performance.now();
const timer = setInterval(() => {
  // catch up to where the schedule says we should be: evenly paced, never in bursts of a second
  const due = Math.floor(((performance.now() - start) / 1000) * rate);
  while (sent < due) one();
  if (performance.now() - start >= seconds * 1000) {
    clearInterval(timer);
    const wait = setInterval(() => {
      if (inFlight > 0) return;
      clearInterval(wait);
      latencies.sort((a, b) => a - b);
      const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
      console.log(JSON.stringify({ sent, done: latencies.length, errors, achieved: latencies.length / seconds, p50: pct(50), p99: pct(99) }));
      agent.destroy();
    }, 10);
  }
}, 1);
