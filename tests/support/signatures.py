"""Signatures the version tests share."""

#: The full signature of an ``ev2r-hybrid/1`` run (`ev2r score examples/averitec_sample.jsonl`, bf16 CPU, before the
#: admission stage): a registered, older version.
V1_SIG = (
    "ev2r:1.0.0|ref:nli|decomp:rules-v2|v2-rev:2|unans:drop|boiler:v2|support:p>=0.5|"
    "prem:qa-pair-max+lex-top5+twin+anchor+contra0.5/rw0.7|prem-rule:pred-answer-2w+span4+rel0.1/20+order-v3+wnsyn|"
    "cal:temp-1.69@72c3e94a|verifier:ev2r-minilm-nli@c82b0fc475+bf16|window:128-max|hyp:clause-window-min|"
    "proxy:nli-gold|agg:qa-pair-max|proxy-rule:pred-answer-2w+span4+rel0.1/20+order-v3+wnsyn+nee-rel+contra0.5/rw0.7|"
    "map:v1|alpha:0.5|hybrid:w=recall:0,proxy:0.2,hybrid_meteor:0,hybrid_embedding:0,precision:0.1,"
    "verified_meteor:0.2,mutual_meteor:0.5|hybrid-emb:all-MiniLM-L6-v2|transformers:5.25.0|torch:2.13.0+cpu")
