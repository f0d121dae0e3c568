// npm run grade -- …: the client package's `grain-tables grade`, run from this repository
// (build/client/cli/grade-command.ts; docs/grading.md).
import { runCli } from '../build/cli-args.ts';
import { gradeCommand } from '../build/client/cli/grade-command.ts';

runCli('grade', () =>
  gradeCommand(process.argv.slice(2), { command: 'npm run grade --', siteDir: process.env.SITE_DIR }),
);
