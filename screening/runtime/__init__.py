"""Process utilities the worker, the bot and the benches share: log redaction (logsafe), the engine reaper
(reaper) and a local redis-server for the demo and benches (local_redis).

They sit below queue/ and the fronts, which use them at run time; ops/ (doctor, verify-model, the benches)
is the top of the house and may use them too, never the other way round.
"""
