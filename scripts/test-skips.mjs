// @ts-check
// A node:test reporter for scripts/test.mjs: one JSON line per skipped test (its file, its name and
// the reason it gave), written to the destination test.mjs names, so that the run can end by saying
// how many were skipped and why. Node's own report is untouched beside it.

/** @param {AsyncIterable<{ type: string, data: { name: string, file?: string, skip?: boolean | string } }>} source */
export default async function* skipped(source) {
  for await (const event of source) {
    const { skip, name, file } = event.data ?? {};
    if (event.type === 'test:pass' && skip)
      yield `${JSON.stringify({ file: file ?? '', name, reason: skip === true ? 'no reason given' : skip })}\n`;
  }
}
