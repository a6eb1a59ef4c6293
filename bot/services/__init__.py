"""The application layer: tables (engine + store + what people are told), the outbox, pictures."""
