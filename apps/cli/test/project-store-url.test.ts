import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bridleDataDir, projectKey, projectStoreUrl } from '../src/project-store-url';
import { tempDir } from './cli-process';

describe('the default store of a project folder', () => {
  it('lives in $XDG_DATA_HOME/bridle when it is absolute, else ~/.local/share/bridle', () => {
    expect(bridleDataDir({ XDG_DATA_HOME: '/data', HOME: '/home/ada' })).toBe('/data/bridle');
    expect(bridleDataDir({ XDG_DATA_HOME: 'relative', HOME: '/home/ada' })).toBe('/home/ada/.local/share/bridle');
    expect(bridleDataDir({ XDG_DATA_HOME: ' ', HOME: '/home/ada' })).toBe('/home/ada/.local/share/bridle');
    expect(projectStoreUrl('/nowhere/app', { HOME: '/home/ada' })).toMatch(
      /^sqlite:\/home\/ada\/\.local\/share\/bridle\/projects\/nowhere-app-[0-9a-f]{16}\/bridle\.db$/,
    );
  });

  it('is keyed by the readable end of the real path plus a hash: symlinks agree, other folders differ', () => {
    const base = tempDir('bridle-key-');
    const folder = join(base, 'Mon projet (v2)');
    mkdirSync(folder);
    symlinkSync(folder, join(base, 'link'));
    const key = projectKey(folder);
    expect(key).toMatch(/-Mon-projet-v2-[0-9a-f]{16}$/);
    expect(key.length).toBeLessThanOrEqual(48 + 17);
    expect(projectKey(join(base, 'link'))).toBe(key);
    expect(projectKey(`${folder}/`)).toBe(key);
    mkdirSync(join(base, 'Mon projet (v2)!'));
    // Same readable part, another folder: the hash tells them apart.
    expect(projectKey(join(base, 'Mon projet (v2)!'))).not.toBe(key);
    expect(projectKey('/')).toMatch(/^[0-9a-f]{16}$/);
  });
});
