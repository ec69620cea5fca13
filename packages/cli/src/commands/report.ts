/** `jsprof report`: being built this session; this placeholder is replaced before it lands. */
import type { Command } from 'commander';

export function addReportCommand(program: Command, _setExitCode: (code: number) => void): void {
  program
    .command('report')
    .description('(not built yet)')
    .action(() => {
      throw new Error('jsprof report is not built yet');
    });
}
