"""Text for people: untrusted text made safe (:mod:`.safe`), Markdown as one line
(:mod:`.plainline`), times and ages (:mod:`.times`), and what to do about a failure
(:mod:`.advice`).
"""
