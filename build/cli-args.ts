// One way for every CLI to read its arguments (node:util's parseArgs): `--help` prints the usage
// and exits 0; a wrong or missing option says which and why, then the usage line, and exits 2.
import { type ParseArgsConfig, parseArgs } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CliSpec<O extends Options> {
  /** The command as typed, e.g. `npm run sync --`. */
  command: string;
  /** The usage line's arguments, e.g. `--url <base URL> --out <folder>`. */
  usage: string;
  /** What --help prints after the usage line: what the command does, each option, exit codes. */
  help: string;
  options: O;
  positionals?: boolean;
}

/** Parses argv; on --help prints the usage and exits 0, on a usage error says why and exits 2. */
export function readArgs<O extends Options>(spec: CliSpec<O>, argv = process.argv.slice(2)) {
  const usageLine = usageOf(spec);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(`${usageLine}\n\n${spec.help.trim()}`);
    process.exit(0);
  }
  try {
    return parseArgs({ args: argv, options: spec.options, allowPositionals: spec.positionals ?? false, strict: true });
  } catch (err) {
    usageExit(spec, sentenceOf(err as Error & { code?: string }));
  }
}

/**
 * parseArgs's complaint as sentences on one line (`Unknown option '--x'.`), without its advice on
 * quoting an argument that starts with a dash ("To specify …"), which is about its own syntax.
 */
function sentenceOf(err: Error & { code?: string }): string {
  if (!err.code?.startsWith('ERR_PARSE_ARGS_')) throw err;
  const said = err.message
    .replace(/\s*To specify [\s\S]*$/, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  return /[.!?]$/.test(said) ? said : `${said}.`;
}

/** The usage line; a command that takes no arguments is shown without npm's `--`. */
const usageOf = (spec: Pick<CliSpec<Options>, 'command' | 'usage'>) =>
  spec.usage ? `usage: ${spec.command} ${spec.usage}` : `usage: ${spec.command.replace(/ --$/, '')}`;

/** Says what is wrong with the call, then the usage line, and exits 2. */
export function usageExit(spec: Pick<CliSpec<Options>, 'command' | 'usage'>, message: string): never {
  console.error(`${message}\n${usageOf(spec)} (--help for more)`);
  process.exit(2);
}

/** Runs a command to its exit code; what it did not expect is one line on stderr and exit 1, no stack. */
export function runCli(name: string, command: () => Promise<number> | number): void {
  Promise.resolve()
    .then(command)
    .then(
      (code) => process.exit(code),
      (err) => {
        console.error(`${name}: ${(err as Error).message}`);
        process.exit(1);
      },
    );
}
