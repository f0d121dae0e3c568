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
  const usageLine = `usage: ${spec.command} ${spec.usage}`;
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(`${usageLine}\n\n${spec.help.trim()}`);
    process.exit(0);
  }
  try {
    return parseArgs({ args: argv, options: spec.options, allowPositionals: spec.positionals ?? false, strict: true });
  } catch (err) {
    usageExit(spec, (err as Error).message);
  }
}

/** Says what is wrong with the call, then the usage line, and exits 2. */
export function usageExit(spec: Pick<CliSpec<Options>, 'command' | 'usage'>, message: string): never {
  console.error(`${message}\nusage: ${spec.command} ${spec.usage} (--help for more)`);
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
