import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseCommandPreset } from '../src/command-preset';

describe('parseCommandPreset', () => {
  it('splits the command into a program and fixed arguments, quotes respected', () => {
    expect(parseCommandPreset('test=npm test')).toEqual({
      name: 'test',
      preset: { executable: 'npm', args: ['test'] },
    });
    expect(parseCommandPreset(`lint=npx biome check "src dir" '$HOME'`)).toEqual({
      name: 'lint',
      preset: { executable: 'npx', args: ['biome', 'check', 'src dir', '$HOME'] },
    });
  });

  it('turns trailing {placeholders} into workspace-path parameters', () => {
    expect(parseCommandPreset('node=node --no-warnings {script} {arg}')).toEqual({
      name: 'node',
      preset: {
        executable: 'node',
        args: ['--no-warnings'],
        params: {
          script: {
            type: 'string',
            format: 'workspace-path',
            description: 'script: a path inside the workspace (relative; absolute paths and .. are refused)',
          },
          arg: {
            type: 'string',
            format: 'workspace-path',
            description: 'arg: a path inside the workspace (relative; absolute paths and .. are refused)',
          },
        },
      },
    });
  });

  it('refuses shell syntax: operators, globs, comments and variables', () => {
    for (const command of [
      'npm test && rm -rf /',
      'cat a | b',
      'ls *.js',
      'echo $HOME',
      'make # c',
      'a > out',
      'sleep 1;ls',
    ]) {
      expect(() => parseCommandPreset(`x=${command}`)).toThrow(/uses shell syntax/);
    }
  });

  it('refuses bad names, missing commands and misplaced placeholders', () => {
    expect(() => parseCommandPreset('npm test')).toThrow(InvalidArgumentError);
    expect(() => parseCommandPreset('1x=ls')).toThrow('expected NAME=COMMAND');
    expect(() => parseCommandPreset('x=')).toThrow('expected NAME=COMMAND');
    expect(() => parseCommandPreset('x=node {a} --flag')).toThrow(
      'placeholders must come last in "x=node {a} --flag": "--flag" follows one.',
    );
    expect(() => parseCommandPreset('x=node {a} {a}')).toThrow('the placeholder {a} appears twice');
  });
});
