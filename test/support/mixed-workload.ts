/**
 * The mixed concurrent workload of issue 26 against the blog demo served by several processes
 * on one database, and the invariants it checks. One module for both runs of it, so they test
 * the same thing: test/e2e/workers.test.ts (two rounds, in `npm test`) and
 * `npm run bench -- --db postgres --workers` (rounds for about 25 s, bench/scaling.ts).
 *
 * A round sends, all at once: creates of four tags under colliding names (four tries each);
 * PATCHes of article 6 with the round's first `If-Match` (its body) and without (its title);
 * to-many adds and removes on article 6's tags; `Idempotency-Key` retries of one create;
 * Atomic Operations batches whose last operation fails (after a create and a link that would
 * otherwise stick); creates of comments; deletes of the previous round's comments, each twice,
 * racing reads of them; reads of other articles with includes. Then it reads back, one request
 * at a time, what each invariant needs. fetch spreads the concurrent requests over many
 * connections, which node:cluster hands to the processes in turn, so every process takes part.
 *
 * It expects the demo's seed (examples/blog/seed.ts, 20 articles or more): person 1 wrote
 * article 6 and person 2 article 7, tags 1-12 exist (one is named `json`). Names carry a random
 * run id, so a database that ran it before can run it again.
 */
import { randomBytes } from 'node:crypto';

const JSONAPI = 'application/vnd.api+json';
const ATOMIC = `${JSONAPI};ext="https://jsonapi.org/ext/atomic"`;
/** The article every round races on (person 1's). */
const ARTICLE = '/articles/6';
/** Even rounds link tags 1-6 to article 6 and unlink 7-12; odd rounds the other way round. */
const LOW = ['1', '2', '3', '4', '5', '6'];
const HIGH = ['7', '8', '9', '10', '11', '12'];

interface Resource {
  type: string;
  id: string;
  attributes?: Record<string, unknown>;
}
interface Doc {
  data?: Resource | Resource[] | null;
  errors?: unknown[];
}
interface Answer {
  /** 0 when the request failed without a response (a reset connection). */
  status: number;
  etag: string | null;
  replayed: boolean;
  doc: Doc | undefined;
}
interface SendInit {
  user?: string;
  body?: unknown;
  ifMatch?: string;
  key?: string;
  atomic?: boolean;
}

/** What the workload checks, in the order the report lists them. */
export const INVARIANTS = [
  'no 5xx and no request without a response',
  'colliding creates: one 201 per name, the others 409',
  'every 201 readable',
  'comment creates: 201',
  'PATCH with one If-Match: at most one 200, the others 412',
  'PATCH without If-Match: 200',
  'every 412 left the row as it was',
  'the title is that of a PATCH without If-Match',
  'to-many adds and removes: 204',
  'no lost to-many change (article 6 has exactly the tags added last)',
  'retries of one Idempotency-Key: 201 (one id) or 409 in flight',
  'a retry after the fact replays the stored 201',
  'the same key with another body: 422',
  'no duplicate from a retried key',
  "failing Atomic batches: the last operation's status",
  'failed Atomic batches left nothing',
  'racing deletes of one row: exactly one 204, the others 404',
  'reads racing deletes: 200 or 404',
  'a deleted row stays deleted',
  'reads with includes: 200',
] as const;
export type InvariantName = (typeof INVARIANTS)[number];

/** One invariant: how many times it was checked, and the first few violations. */
export interface Invariant {
  name: InvariantName;
  checked: number;
  failures: string[];
}

export interface WorkloadReport {
  rounds: number;
  seconds: number;
  requests: number;
  /** Requests by status (0: no response), every kind together. */
  byStatus: Map<number, number>;
  /** Requests by kind (`patch-if-match`, `verify`, ...), then by status. */
  byKind: Map<string, Map<number, number>>;
  invariants: Invariant[];
}

export interface WorkloadOptions {
  /** Rounds to run; default 1. */
  rounds?: number;
  /** Instead of `rounds`: start rounds until this much time has passed (at least one). */
  seconds?: number;
  /** Progress, one line every few seconds. */
  log?: (line: string) => void;
}

/** The last operation of each failing batch, and the status the batch must answer with. */
const FAILING_LAST_OPS: ReadonlyArray<{ status: number; op: unknown }> = [
  { status: 422, op: { op: 'update', data: { type: 'articles', id: '6', attributes: { title: null } } } },
  { status: 404, op: { op: 'remove', ref: { type: 'tags', id: '99999' } } },
  { status: 403, op: { op: 'update', data: { type: 'articles', id: '7', attributes: { title: 'not person 1s' } } } },
  { status: 409, op: { op: 'add', data: { type: 'tags', attributes: { name: 'json' } } } },
];

const tagDoc = (name: string) => ({ data: { type: 'tags', attributes: { name } } });
const articleDoc = (attributes: Record<string, string>) => ({ data: { type: 'articles', id: '6', attributes } });
const linkage = (id: string) => ({ data: [{ type: 'tags', id }] });
const commentDoc = (body: string) => ({
  data: {
    type: 'comments',
    attributes: { body },
    relationships: { author: { data: { type: 'people', id: '1' } }, article: { data: { type: 'articles', id: '6' } } },
  },
});
const one = (answer: Answer): Resource | undefined =>
  Array.isArray(answer.doc?.data) ? undefined : (answer.doc?.data ?? undefined);
const many = (answer: Answer): Resource[] => (Array.isArray(answer.doc?.data) ? answer.doc.data : []);

/** Runs the workload against the demo at `url` and reports what it sent and what held. */
export async function runMixedWorkload(url: string, options: WorkloadOptions = {}): Promise<WorkloadReport> {
  const run = randomBytes(3).toString('hex');
  const byKind = new Map<string, Map<number, number>>();
  const invariants = new Map<InvariantName, Invariant>();

  const check = (name: InvariantName, ok: boolean, detail: () => string): void => {
    let invariant = invariants.get(name);
    if (!invariant) invariants.set(name, (invariant = { name, checked: 0, failures: [] }));
    invariant.checked++;
    // A handful says what went wrong; thousands would drown the report.
    if (!ok && invariant.failures.length < 5) invariant.failures.push(detail());
  };

  const send = async (kind: string, method: string, path: string, init: SendInit = {}): Promise<Answer> => {
    const type = init.atomic ? ATOMIC : JSONAPI;
    let answer: Answer;
    try {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          accept: type,
          ...(init.body !== undefined && { 'content-type': type }),
          ...(init.user !== undefined && { authorization: `Bearer ${init.user}` }),
          ...(init.ifMatch !== undefined && { 'if-match': init.ifMatch }),
          ...(init.key !== undefined && { 'idempotency-key': init.key }),
        },
        ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      });
      const text = await response.text();
      answer = {
        status: response.status,
        etag: response.headers.get('etag'),
        replayed: response.headers.get('idempotency-replayed') === 'true',
        doc: text ? (JSON.parse(text) as Doc) : undefined,
      };
    } catch (error) {
      answer = { status: 0, etag: null, replayed: false, doc: { errors: [String(error)] } };
    }
    const statuses = byKind.get(kind) ?? new Map<number, number>();
    byKind.set(kind, statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1));
    check(
      'no 5xx and no request without a response',
      answer.status > 0 && answer.status < 500,
      () => `${method} ${path}: ${answer.status} ${JSON.stringify(answer.doc?.errors ?? '')}`,
    );
    return answer;
  };
  const statusesOf = (answers: readonly Answer[]) => answers.map((a) => a.status).join(',');

  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  let logged = 0;
  // Each round deletes the comments the one before created (the first deletes none).
  let pendingDeletes: string[] = [];
  let rounds = 0;
  while (options.seconds === undefined ? rounds < (options.rounds ?? 1) : rounds === 0 || elapsed() < options.seconds) {
    const r = rounds++;
    const prefix = `${run} ${r}`;
    const before = await send('verify', 'GET', ARTICLE);
    const tag0 = before.etag ?? '';
    const body0 = one(before)?.attributes?.body;
    const [added, removed] = r % 2 === 0 ? [LOW, HIGH] : [HIGH, LOW];
    const names = [0, 1, 2, 3].map((k) => `tag ${prefix}-${k}`);
    const key = `retry-${run}-${r}`;
    const retried = `retried ${prefix}`;
    const deleting = pendingDeletes;

    const [creates, ifMatch, plain, links, retries, batches, comments, deletes, reads] = await Promise.all([
      Promise.all(
        names.flatMap((name) =>
          [0, 1, 2, 3].map(() =>
            send('create-tag', 'POST', '/tags', { body: tagDoc(name) }).then((answer) => ({ name, answer })),
          ),
        ),
      ),
      Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          send('patch-if-match', 'PATCH', ARTICLE, {
            user: '1',
            ifMatch: tag0,
            body: articleDoc({ body: `if-match ${prefix}-${i}` }),
          }),
        ),
      ),
      Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          send('patch', 'PATCH', ARTICLE, { user: '1', body: articleDoc({ title: `plain ${prefix}-${i}` }) }),
        ),
      ),
      Promise.all([
        ...added.map((id) =>
          send('add-tag', 'POST', `${ARTICLE}/relationships/tags`, { user: '1', body: linkage(id) }),
        ),
        ...removed.map((id) =>
          send('remove-tag', 'DELETE', `${ARTICLE}/relationships/tags`, { user: '1', body: linkage(id) }),
        ),
      ]),
      Promise.all(
        Array.from({ length: 6 }, () => send('retry', 'POST', '/tags', { user: '1', key, body: tagDoc(retried) })),
      ),
      Promise.all(
        FAILING_LAST_OPS.map(({ status, op }, i) => {
          const name = `batch ${prefix}-${i}`;
          const operations = [
            { op: 'add', data: { type: 'tags', lid: 'x', attributes: { name } } },
            { op: 'add', ref: { type: 'articles', id: '6', relationship: 'tags' }, data: [{ type: 'tags', lid: 'x' }] },
            op,
          ];
          return send('failing-batch', 'POST', '/operations', {
            user: '1',
            atomic: true,
            body: { 'atomic:operations': operations },
          }).then((answer) => ({ name, status, answer }));
        }),
      ),
      Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          send('create-comment', 'POST', '/comments', { user: '1', body: commentDoc(`comment ${prefix}-${i}`) }),
        ),
      ),
      Promise.all(
        deleting.map(async (id) => {
          const path = `/comments/${id}`;
          const [first, second, readA, readB] = await Promise.all([
            send('delete', 'DELETE', path, { user: '2' }),
            send('delete', 'DELETE', path, { user: '3' }),
            send('read-deleted', 'GET', path),
            send('read-deleted', 'GET', path),
          ]);
          return { path, deletes: [first, second], reads: [readA, readB] };
        }),
      ),
      Promise.all(['7', '8', '9', '10'].map((id) => send('read', 'GET', `/articles/${id}?include=tags,author`))),
    ]);

    // Colliding creates: exactly one 201 per name; every 201 (tags, comments) readable.
    const createdPaths: string[] = [];
    for (const name of names) {
      const answers = creates.filter((c) => c.name === name).map((c) => c.answer);
      const ok =
        answers.filter((a) => a.status === 201).length === 1 &&
        answers.every((a) => a.status === 201 || a.status === 409);
      check('colliding creates: one 201 per name, the others 409', ok, () => `${name}: ${statusesOf(answers)}`);
      for (const a of answers) if (a.status === 201) createdPaths.push(`/tags/${one(a)?.id}`);
    }
    for (const a of comments) {
      check('comment creates: 201', a.status === 201, () => `comment: ${a.status}`);
      if (a.status === 201) createdPaths.push(`/comments/${one(a)?.id}`);
    }
    pendingDeletes = comments.filter((a) => a.status === 201).map((a) => one(a)?.id ?? '');

    // If-Match: of the PATCHes sent with the round's first tag, at most one wins; the row holds
    // the winner's body or, when every one got 412, the body it had before.
    const winners = ifMatch.map((a, i) => ({ a, i })).filter(({ a }) => a.status === 200);
    check(
      'PATCH with one If-Match: at most one 200, the others 412',
      winners.length <= 1 && ifMatch.every((a) => a.status === 200 || a.status === 412),
      () => `round ${r}: ${statusesOf(ifMatch)}`,
    );
    check(
      'PATCH without If-Match: 200',
      plain.every((a) => a.status === 200),
      () => `round ${r}: ${statusesOf(plain)}`,
    );
    const after = await send('verify', 'GET', ARTICLE);
    const expectedBody = winners.length === 1 ? `if-match ${prefix}-${winners[0]!.i}` : body0;
    const attributes = one(after)?.attributes ?? {};
    check(
      'every 412 left the row as it was',
      attributes.body === expectedBody,
      () =>
        `round ${r}: body ${JSON.stringify(attributes.body)}, expected ${JSON.stringify(expectedBody)} (${statusesOf(ifMatch)})`,
    );
    check(
      'the title is that of a PATCH without If-Match',
      typeof attributes.title === 'string' && attributes.title.startsWith(`plain ${prefix}-`),
      () => `round ${r}: title ${JSON.stringify(attributes.title)}`,
    );
    if (plain.some((a) => a.status === 200)) {
      // The round's first tag is stale now: a PATCH with it is 412 and changes nothing, read
      // back (most likely from another process) with the same ETag.
      const stale = await send('verify', 'PATCH', ARTICLE, {
        user: '1',
        ifMatch: tag0,
        body: articleDoc({ body: `stale ${prefix}` }),
      });
      const again = await send('verify', 'GET', ARTICLE);
      check(
        'every 412 left the row as it was',
        stale.status === 412 &&
          again.etag === after.etag &&
          JSON.stringify(one(again)?.attributes) === JSON.stringify(attributes),
        () => `round ${r}: stale PATCH ${stale.status}, ETag ${after.etag} then ${again.etag}`,
      );
    }

    // To-many: every add and remove took effect, whatever ran beside it.
    check(
      'to-many adds and removes: 204',
      links.every((a) => a.status === 204),
      () => `round ${r}: ${statusesOf(links)}`,
    );
    const linked = many(await send('verify', 'GET', `${ARTICLE}/relationships/tags`))
      .map((t) => t.id)
      .sort((a, b) => Number(a) - Number(b));
    check(
      'no lost to-many change (article 6 has exactly the tags added last)',
      linked.join(',') === added.join(','),
      () => `round ${r}: tags ${linked.join(',')}, expected ${added.join(',')}`,
    );

    // Idempotency-Key: one create, whatever the retries; a later retry replays it.
    const ids = new Set(retries.filter((a) => a.status === 201).map((a) => one(a)?.id));
    check(
      'retries of one Idempotency-Key: 201 (one id) or 409 in flight',
      ids.size === 1 && retries.every((a) => a.status === 201 || a.status === 409),
      () => `round ${r}: ${statusesOf(retries)}, ids ${[...ids].join(',')}`,
    );
    const replay = await send('verify', 'POST', '/tags', { user: '1', key, body: tagDoc(retried) });
    check(
      'a retry after the fact replays the stored 201',
      replay.status === 201 && replay.replayed && ids.has(one(replay)?.id),
      () => `round ${r}: ${replay.status}, replayed ${replay.replayed}, id ${one(replay)?.id}`,
    );
    const reused = await send('verify', 'POST', '/tags', { user: '1', key, body: tagDoc(`${retried} (another body)`) });
    check('the same key with another body: 422', reused.status === 422, () => `round ${r}: ${reused.status}`);
    const named = many(await send('verify', 'GET', `/tags?filter[name]=${encodeURIComponent(retried)}`));
    check(
      'no duplicate from a retried key',
      named.length === 1,
      () => `round ${r}: ${named.length} tags named ${retried}`,
    );

    // Atomic Operations: the batch answers with its last operation's error and leaves nothing.
    for (const batch of batches) {
      check(
        "failing Atomic batches: the last operation's status",
        batch.answer.status === batch.status,
        () => `${batch.name}: ${batch.answer.status}, expected ${batch.status}`,
      );
      const left = many(await send('verify', 'GET', `/tags?filter[name]=${encodeURIComponent(batch.name)}`));
      check('failed Atomic batches left nothing', left.length === 0, () => `${batch.name}: ${left.length} tag(s) left`);
    }

    // Deletes racing reads: one delete wins, the reads see the row or nothing, then it is gone.
    for (const d of deletes) {
      // Exactly one removes the row: a delete that finds it but removes nothing (another got
      // there first) is a 404, as the row is gone.
      const statuses = d.deletes.map((a) => a.status);
      check(
        'racing deletes of one row: exactly one 204, the others 404',
        statuses.filter((s) => s === 204).length === 1 && statuses.every((s) => s === 204 || s === 404),
        () => `${d.path}: ${statuses.join(',')}`,
      );
      check(
        'reads racing deletes: 200 or 404',
        d.reads.every((a) => a.status === 200 || a.status === 404),
        () => `${d.path}: ${statusesOf(d.reads)}`,
      );
      const gone = await send('verify', 'GET', d.path);
      check('a deleted row stays deleted', gone.status === 404, () => `${d.path}: ${gone.status}`);
    }
    check(
      'reads with includes: 200',
      reads.every((a) => a.status === 200),
      () => `round ${r}: ${statusesOf(reads)}`,
    );
    for (const path of createdPaths) {
      const read = await send('verify', 'GET', path);
      check('every 201 readable', read.status === 200, () => `${path}: ${read.status}`);
    }

    if (options.log && elapsed() - logged >= 5) {
      logged = elapsed();
      options.log(
        `  mixed workload: ${rounds} round(s), ${[...byKind.values()].reduce((n, m) => n + [...m.values()].reduce((a, b) => a + b, 0), 0)} requests, ${logged.toFixed(0)} s`,
      );
    }
  }

  const byStatus = new Map<number, number>();
  for (const statuses of byKind.values())
    for (const [status, n] of statuses) byStatus.set(status, (byStatus.get(status) ?? 0) + n);
  return {
    rounds,
    seconds: elapsed(),
    requests: [...byStatus.values()].reduce((a, b) => a + b, 0),
    byStatus: new Map([...byStatus].sort(([a], [b]) => a - b)),
    byKind,
    invariants: INVARIANTS.flatMap((name) => invariants.get(name) ?? []),
  };
}
