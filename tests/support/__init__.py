"""What several test folders share: fake verifiers and scorers (:mod:`.fakes`), a tiny
random NLI checkpoint, LLM server fixtures and helpers, Ray input rows."""
