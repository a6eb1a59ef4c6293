"""What the seven rummies share beyond the engine (engine/rummy, engine/melds): their AI knowledge."""
