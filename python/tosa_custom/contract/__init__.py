"""The contract (CONTRACT.md) as code: how an ATen call is encoded on a
`tosa.custom` (`encoding`), rebuilt from one (`decode`), and what each result
of the entry function is (`signature`). Depends on core only, so every
consumer of our IR (the runtime, a backend's tools) can read it without the
compiler."""
