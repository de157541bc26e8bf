"""Reading whole corpora (mailboxes, chat exports, note folders) as import records."""
