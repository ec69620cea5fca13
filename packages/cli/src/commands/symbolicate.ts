/** `jsprof symbolicate`: being built this session; this placeholder is replaced before it lands. */
import type { Command } from 'commander';

export function addSymbolicateCommand(program: Command, _setExitCode: (code: number) => void): void {
  program
    .command('symbolicate')
    .description('(not built yet)')
    .action(() => {
      throw new Error('jsprof symbolicate is not built yet');
    });
}
