/**
 * SIGTERM on the demo process (`examples/blog/server.ts`, SQLite): every request on a connection
 * the process accepted, or that waited in the kernel's accept queue when the signal came, gets
 * a whole response; a request still arriving (its body half sent) is answered; new connections
 * are refused at once (ECONNREFUSED) rather than left hanging; the process exits 0.
 *
 * The accept queue is filled deterministically: the process is stopped (SIGSTOP), clients
 * connect and send their requests (the kernel completes the connections), then SIGTERM and
 * SIGCONT arrive together.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Sends `head` (and `body` when given) on a new connection; resolves with the first response's status line and body, or the socket's error. */
function exchange(
  port: number,
  head: string,
  body?: { first: string; rest: Promise<string> },
): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text);
      if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) {
        socket.destroy();
        resolve({ status: Number(text.slice(9, 12)), body: text.slice(end + 4) });
      }
    });
    socket.on('close', () => resolve({ error: `closed after ${JSON.stringify(text.slice(0, 80))}` }));
    socket.write(`${head}\r\n\r\n${body?.first ?? ''}`);
    void body?.rest.then((rest) => socket.write(rest));
  });
}

describe('SIGTERM on the demo', () => {
  let server: ChildProcess;
  let port: number;

  beforeAll(async () => {
    server = spawn(process.execPath, ['--import', 'tsx', 'examples/blog/server.ts', '--seed', '5'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    port = await new Promise<number>((resolve, reject) => {
      let output = '';
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        if (match) resolve(Number(match[1]));
      };
      server.stdout!.on('data', read);
      server.stderr!.on('data', read);
      server.once('exit', (code) => reject(new Error(`the demo exited with ${code}:\n${output}`)));
    });
  }, 60_000);

  afterAll(() => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  });

  it('answers every accepted and queued request, refuses new connections, and exits 0', async () => {
    const get = `GET /articles?page[limit]=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}`;
    // An idle keep-alive connection: it had its answer; at shutdown it is closed, not answered again.
    expect(await exchange(port, get)).toMatchObject({ status: 200 });
    // A request under way: its headers and half its body are in; the rest comes after SIGTERM.
    let sendRest!: (rest: string) => void;
    const body = JSON.stringify({ data: { type: 'people', attributes: { name: 'Late' } } });
    const slow = exchange(
      port,
      `POST /people HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/vnd.api+json\r\nContent-Length: ${body.length}`,
      {
        first: body.slice(0, 10),
        rest: new Promise((resolve) => (sendRest = resolve)),
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Stopped, the process accepts nothing: these connections wait in the kernel's accept queue.
    server.kill('SIGSTOP');
    const queued = Array.from({ length: 20 }, () => exchange(port, get));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    server.kill('SIGCONT');

    for (const answer of await Promise.all(queued)) {
      expect(answer).toMatchObject({ status: 200 });
      expect(JSON.parse((answer as { body: string }).body).data).toHaveLength(1);
    }
    // The listener is closed while the slow request keeps the process up: a new connection is refused at once.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(server.exitCode).toBeNull();
    expect(await exchange(port, get)).toEqual({ error: 'ECONNREFUSED' });
    sendRest(body.slice(10));
    expect(await slow).toMatchObject({ status: 201 });

    const started = Date.now();
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 60_000);
});
