/** `jsprof aggregate`: being built this session; this placeholder is replaced before it lands. */
import type { Command } from 'commander';

export function addAggregateCommand(program: Command, _setExitCode: (code: number) => void): void {
  program
    .command('aggregate')
    .description('(not built yet)')
    .action(() => {
      throw new Error('jsprof aggregate is not built yet');
    });
}
