"""The rummies' family package: what the manipulation rummies (Carousel, Machiavelli, Tahiti, Guadalupe,
Vatican, Shanghai, Manipulation) share beyond the engine (``engine/rummy``): their presentation (words,
pictures, the toggle hand's words) used by each rummy's ``games/<id>/present.py``. Not a registered game."""
