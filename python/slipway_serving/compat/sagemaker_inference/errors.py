class UnsupportedFormatError(Exception):
    def __init__(self, content_type, **kwargs):
        self._message = "Content type %s is not supported by this framework." % content_type
        super().__init__(self._message, **kwargs)

    def __str__(self):
        return self._message


class GenericInferenceToolkitError(Exception):
    def __init__(self, status_code, message=None, phrase=None):
        self.status_code = status_code
        self.message = message
        self.phrase = phrase
        super().__init__(status_code, message, phrase)
