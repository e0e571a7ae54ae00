# An uncaught exception raised with `from`: the new exception is what is reported.
class ConfigError(Exception):
    pass


settings = {"timeout": "30", "retries": "three"}
parsed = {}
for key, raw in settings.items():
    try:
        parsed[key] = int(raw)
        print("parsed", key, parsed[key])
    except ValueError as e:
        raise ConfigError(f"setting {key!r} must be an integer") from e
