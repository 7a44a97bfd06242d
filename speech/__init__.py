"""Speech-to-text for voice turns: decoding what browsers send, faster-whisper, streaming VAD.

``decode`` turns webm/opus, ogg, wav or raw PCM16 into 16 kHz mono float32 samples;
``transcribe`` runs the bundled Whisper model (loaded once per process, ``model``);
``vad`` finds the end of an utterance in a live PCM stream. Bad audio raises ``SpeechError``.
"""

from speech.errors import SpeechError

__all__ = ["SpeechError"]
