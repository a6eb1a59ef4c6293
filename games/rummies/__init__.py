"""The rummies' family package: what the manipulation rummies (Carousel, Machiavelli, Tahiti, Guadalupe,
Vatican, Shanghai, Manipulation) share beyond the engine (``engine/rummy``, ``engine/melds``): their AI knowledge
(``ai.py``) and their presentation (words, pictures, the toggle hand's words), used by each rummy's
``games/<id>/`` modules. Not a registered game."""
