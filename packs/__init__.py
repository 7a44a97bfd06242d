"""Business types as packs: data a vendor writes (actions, words, guides, a sample catalog, suites), never code."""
