"""``VersionedCache``: a value is built once per key and version, the least recently used dropped past the size."""

from shelfwise.versioned import VersionedCache


def test_a_value_is_built_again_only_when_its_version_changes():
    built = []
    cache: VersionedCache[str] = VersionedCache(4)

    def build(text):
        built.append(text)
        return text

    assert cache.get("a", 1, lambda: build("a1")) == "a1"
    assert cache.get("a", 1, lambda: build("never")) == "a1"
    assert cache.get("a", 2, lambda: build("a2")) == "a2"
    assert built == ["a1", "a2"]


def test_past_its_size_the_least_recently_used_key_goes_first():
    sizes = [2]
    cache: VersionedCache[str] = VersionedCache(lambda: sizes[0])
    cache.get("a", 1, lambda: "a")
    cache.get("b", 1, lambda: "b")
    cache.get("a", 1, lambda: "rebuilt a")  # "a" used last: "b" is the one to go
    cache.get("c", 1, lambda: "c")
    assert cache.get("a", 1, lambda: "rebuilt a") == "a"
    assert cache.get("b", 1, lambda: "rebuilt b") == "rebuilt b"
    cache.clear()
    assert cache.get("a", 1, lambda: "after clear") == "after clear"
