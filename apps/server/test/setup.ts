import { afterEach } from 'vitest';
import { shutDownTestServers } from './helpers';

// Run before every test file (vitest re-runs setup files for each one), so each file gets this hook.
afterEach(shutDownTestServers);
