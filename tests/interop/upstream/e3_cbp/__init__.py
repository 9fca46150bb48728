# aiproto's own: E3's package __init__ also imports its embedding compressor
# (sentence-transformers), which the CBP tests do not need.
