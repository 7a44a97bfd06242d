"""The media library: audio guides, the demo film and shelf photos (see ``library``)."""
