// A read store checkpointer thread that fails as it starts, as one that cannot open the file would.
throw new Error('the checkpointer thread died')
