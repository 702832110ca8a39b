// filled by the campaign page
