"""The queue's Lua scripts: the only places where a job's rows, counters and state change together.

Redis runs a script atomically, so "write these rows once, bump the counters, finish the job when
it has all of them" can never be half done, whoever calls it (a worker, a cancel, a redelivery).
"""

# Write rows idempotently and finish the job when it has all of them, atomically.
# KEYS: meta, rows, items, attempts, active zset, owner set (may be a dummy key), alone
# ARGV: job_id, mode ("write"|"cancel"), now, ttl, then triples index, row json, failed ("1"/"0")
# Returns {state_code, added..}: state_code 0 = still running, 1 = finished by this call,
# 2 = was already finished (nothing written), -1 = job unknown (expired).
WRITE_ROWS = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {-1} end
if state ~= 'queued' and state ~= 'running' then return {2} end
local added = {}
local nfail = 0
for i = 5, #ARGV, 3 do
  if redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]) == 1 then
    table.insert(added, ARGV[i])
    if ARGV[i + 2] == '1' then nfail = nfail + 1 end
  end
end
if #added > 0 then
  redis.call('HINCRBY', KEYS[1], 'done', #added)
  if nfail > 0 then redis.call('HINCRBY', KEYS[1], 'failed', nfail) end
end
local done = tonumber(redis.call('HGET', KEYS[1], 'done'))
local total = tonumber(redis.call('HGET', KEYS[1], 'total'))
local code = 0
if ARGV[2] == 'cancel' or done >= total then
  local final = 'done'
  if ARGV[2] == 'cancel' then final = 'cancelled' end
  redis.call('HSET', KEYS[1], 'state', final, 'finished_at', ARGV[3])
  local ttl = tonumber(ARGV[4])
  for k = 1, 4 do redis.call('EXPIRE', KEYS[k], ttl) end
  redis.call('EXPIRE', KEYS[7], ttl)
  redis.call('ZREM', KEYS[5], ARGV[1])
  redis.call('SREM', KEYS[6], ARGV[1])
  code = 1
end
table.insert(added, 1, code)
return added
"""

# Mark a job running on first claim; keeps the first started_at.
START_JOB = """
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'queued' then
  redis.call('HSET', KEYS[1], 'state', 'running')
  redis.call('HSETNX', KEYS[1], 'started_at', ARGV[1])
end
return state
"""
