// npm run bench:compare -- <ref> [--rounds 6 --duration 5 --warmup 3 --connections 32 --quick --out FILE]
// The working tree's request path against the code of a git ref (compare.ts), the br-encoded 200,
// the 304 and the identity 200, in turn and at once, --rounds of each (about thirteen minutes with the
// defaults). Prints the report (Markdown, ending in the verdict: faster, slower or within noise)
// to stdout, and to FILE with --out. Paste it into a change that touches the request path
// (docs/performance.md, "Judging a change").

import { compareWith } from './compare.ts';
import { runBench } from './context.ts';

runBench(process.argv.slice(2), (b) => compareWith(b, b.positionals[0]!), {
  help: `Measures the working tree's request path against the code of <git ref> (HEAD~1, a branch, a
commit): the br-encoded 200, the 304 and the identity 200, in turn and at once, each --rounds times
(about thirteen minutes with the defaults). The report ends in a verdict: faster, slower or within
noise (docs/performance.md, "Judging a change").`,
  positionals: 1,
  usage: '<git ref, e.g. HEAD~1> ',
  rounds: 6,
});
