"""May I, and how do I, talk to this site?

Politeness and safety policy of every outgoing request, as pure rules: the SSRF guard,
robots.txt, token buckets, circuit breakers, backoff, body caps, challenge detection,
cookies, the browser's loading rules, Tor usage, registrable domains and trust levels,
and the texts that ask a person for help. Imports only `lyra.config` and
`lyra.pipelines.errors`.
"""
