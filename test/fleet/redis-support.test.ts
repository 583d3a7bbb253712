/**
 * The tests' own Redis (test/support/redis.ts): started on a free port, answering, gone once
 * stopped or killed, so the Redis tests never reach one they did not start.
 */
import { expect } from 'chai';
import { connect } from 'node:net';
import { skipWithoutRedis, startRedis } from '../support/redis.js';
import { scaled } from '../support/time.js';

/** What Redis answers `command` with on `port`, or the connection error's code. */
function ask(port: number, command: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let said = '';
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.endsWith('\r\n')) {
        socket.destroy();
        resolve(said.trim());
      }
    });
  });
}

describe('the tests’ own redis-server', function () {
  this.timeout(scaled(20_000));
  before(function () {
    skipWithoutRedis(this, 'the Redis support test');
  });

  it('starts on a free loopback port without persistence, and stops', async () => {
    const redis = await startRedis();
    expect(redis.url).to.equal(`redis://127.0.0.1:${redis.port}`);
    expect(await ask(redis.port, 'PING')).to.equal('+PONG');
    expect(await ask(redis.port, 'CONFIG GET appendonly')).to.contain('no');
    await redis.stop();
    expect(await ask(redis.port, 'PING')).to.equal('ECONNREFUSED');
  });

  it('dies at once when killed, as a dying Redis does', async () => {
    const redis = await startRedis();
    await redis.kill();
    expect(redis.child.signalCode).to.equal('SIGKILL');
    expect(await ask(redis.port, 'PING')).to.equal('ECONNREFUSED');
  });
});
