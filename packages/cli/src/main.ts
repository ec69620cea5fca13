/** The `jsprof` command. */
import { TraceError, printable, printableLines } from '@jsprof/trace-tools';
import { Command } from 'commander';
import { addRunCommand } from './commands/run';
import { addInstrumentCommand } from './commands/instrument';
import { addReportCommand } from './commands/report';
import { addConvertCommand } from './commands/convert';
import { addSymbolicateCommand } from './commands/symbolicate';
import { addAggregateCommand } from './commands/aggregate';
import { addCacheCommand } from './commands/cache';
import { addIngestCommand } from './commands/ingest';
import { addQueryCommand } from './commands/query';
import { addServeCommand } from './commands/serve';
import { addSchemaCommand } from './commands/schema';
import { UsageError } from './files';

export async function main(argv: string[]): Promise<number> {
  const program = new Command();
  program
    .name('jsprof')
    .description('The JS Self-Profiling API for every JavaScript engine.')
    .version(require('../package.json').version)
    .showHelpAfterError('(add --help for usage)')
    .enablePositionalOptions()
    .exitOverride(); // before the commands are made, so that they inherit it

  let exitCode = 0;
  const setExitCode = (code: number) => {
    exitCode = code;
  };
  addRunCommand(program, setExitCode);
  addInstrumentCommand(program, setExitCode);
  addReportCommand(program, setExitCode);
  addConvertCommand(program, setExitCode);
  addSymbolicateCommand(program, setExitCode);
  addAggregateCommand(program, setExitCode);
  addCacheCommand(program, setExitCode);
  addIngestCommand(program, setExitCode);
  addQueryCommand(program, setExitCode);
  addServeCommand(program, setExitCode);
  addSchemaCommand(program, setExitCode);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error: any) {
    if (error?.code === 'commander.helpDisplayed' || error?.code === 'commander.version') return 0;
    // Help asked for (`jsprof help`) is 0; help shown because no command was given (`jsprof`, `jsprof help nosuch`) is bad usage.
    if (error?.code === 'commander.help') return error.exitCode === 0 ? 0 : 2;
    // Bad usage (an unknown option, an invalid argument…): commander has said what; exit status 2.
    if (typeof error?.code === 'string' && error.code.startsWith('commander.')) return 2;
    if (error instanceof UsageError) process.stderr.write(printableLines(`jsprof: ${error.message}\n`));
    if (error?.exitCode !== undefined) return error.exitCode;
    // What is wrong with a trace file is one line, its text escaped as aggregate escapes it.
    const message = error instanceof TraceError ? printable(error.message) : (error?.message ?? error);
    process.stderr.write(printableLines(`jsprof: ${message}\n`));
    return 1;
  }
  return exitCode;
}
