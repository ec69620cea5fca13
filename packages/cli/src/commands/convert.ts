/** `jsprof convert`: being built this session; this placeholder is replaced before it lands. */
import type { Command } from 'commander';

export function addConvertCommand(program: Command, _setExitCode: (code: number) => void): void {
  program
    .command('convert')
    .description('(not built yet)')
    .action(() => {
      throw new Error('jsprof convert is not built yet');
    });
}
