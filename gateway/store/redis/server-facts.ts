// What the Redis server says of itself (INFO, which managed services answer where CONFIG GET is
// refused), and what the gateway makes of it (docs/operations.md, Redis in production): a server
// that may evict is refused, since the keys are the service's data and not a cache; a replica
// cannot take writes; one that keeps no append-only file and has no replica is allowed with a
// warning. Pure, so each case is a table row (test/redis-identity.test.ts).

export interface ServerFacts {
  role: string;
  policy: string;
  appendOnly: boolean;
  replicas: number;
  /** The server process's run id: another one is another server, or the same one restarted. */
  runId: string;
}

/** The fields of an INFO answer (`name:value` lines, sections and blanks skipped). */
export function factsOf(info: string): ServerFacts {
  const field = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) field.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return {
    role: field.get('role') ?? 'unknown',
    // absent on servers too old to evict by policy; a missing field is not a reason to refuse
    policy: field.get('maxmemory_policy') ?? 'noeviction',
    appendOnly: field.get('aof_enabled') === '1',
    replicas: Number(field.get('connected_slaves') ?? 0),
    runId: field.get('run_id') ?? '',
  };
}

export interface ServerJudgement {
  /** Why keys must not be written there at all (a replica), else null. */
  notPrimary: string | null;
  /** Why the server may lose keys by itself (an evicting policy), else null: refused at start. */
  evicting: string | null;
  /** What the operator should know but that does not stop the service (no persistence), else null. */
  warning: string | null;
}

export function judgeServer(f: ServerFacts, where: string): ServerJudgement {
  return {
    notPrimary:
      f.role === 'master'
        ? null
        : `Redis at ${where} is a ${f.role === 'slave' ? 'replica' : f.role} and refuses writes: ` +
          'point REDIS_URL at the primary, or let REDIS_SENTINELS find it',
    evicting:
      f.policy === 'noeviction'
        ? null
        : `Redis at ${where} has maxmemory-policy ${f.policy}: it deletes keys when memory runs short, ` +
          "and these keys are the service's accounts, not a cache. Set maxmemory-policy to noeviction " +
          "(redis.conf, CONFIG SET, or the managed service's parameter), then start the gateway",
    warning:
      f.appendOnly || f.replicas > 0
        ? null
        : `Redis at ${where} keeps no append-only file and has no replica: a restart of it loses the keys ` +
          'issued since its last snapshot. Turn on appendonly (appendfsync always), or add a replica with ' +
          'REDIS_MIN_REPLICAS',
  };
}
