import { describe, expect, it } from 'vitest';
import { binaryAvailability, postgresBinDir, redisServerPath } from '../../helpers/engine-binaries';

describe('the engine suites without their binaries', () => {
  it('run with the binary, skip without it, and fail without it on CI', () => {
    expect(binaryAvailability('redis-server', '/usr/bin/redis-server', { CI: 'true' })).toEqual({ kind: 'run', path: '/usr/bin/redis-server' });
    expect(binaryAvailability('redis-server', undefined, {})).toMatchObject({ kind: 'skip', message: expect.stringContaining('apt-get install') });
    expect(binaryAvailability('redis-server', undefined, { CI: 'true' })).toMatchObject({ kind: 'fail', message: expect.stringContaining('CI=true') });
  });

  it('find binaries where FLAGPLANE_REDIS_SERVER and FLAGPLANE_PG_BIN point, and nothing where they do not', () => {
    expect(redisServerPath({ FLAGPLANE_REDIS_SERVER: '/missing/redis-server' })).toBeUndefined();
    expect(postgresBinDir({ FLAGPLANE_PG_BIN: '/missing/bin' })).toBeUndefined();
  });
});
