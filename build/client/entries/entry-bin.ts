#!/usr/bin/env node
// The package's bin, `grain-tables` (../cli/main.ts).
import { runCli } from '../../cli-args.ts';
import { grainTables } from '../cli/main.ts';

runCli('grain-tables', () => grainTables(process.argv.slice(2), process.env));
